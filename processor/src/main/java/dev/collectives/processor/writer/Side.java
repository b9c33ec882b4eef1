package dev.collectives.processor.writer;

import com.palantir.javapoet.CodeBlock;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpKind;

/**
 * One side of an op: which accessor, its offset attribute, how many elements in and how many long when known at
 * compile time (null when an expression gives them).
 */
record Side(String role, BufferDecl buffer, String offsetAttribute, Long offset, Long count, OpKind.Extent extent) {
    boolean wholeBuffer() {
        return offset == 0 && extent == OpKind.Extent.COUNT;
    }

    /** The element count as Java: 1024L, or 1024L * comm.size(). */
    CodeBlock countCode() {
        return extent == OpKind.Extent.COUNT_TIMES_RANKS ? CodeBlock.of("$LL * comm.size()", count)
                : CodeBlock.of("$LL", count);
    }
}
