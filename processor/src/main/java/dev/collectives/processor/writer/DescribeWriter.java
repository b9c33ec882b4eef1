package dev.collectives.processor.writer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.lang.model.element.Modifier;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;

import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.runtime.Window;

/** {@code describe()}, each op's row with its registration path, and {@code close()}, which releases in reverse. */
final class DescribeWriter extends GenerationPart {
    DescribeWriter(Generation generation) {
        super(generation);
    }

    MethodSpec describe() {
        List<CodeBlock> rows = new ArrayList<>();
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                rows.add(CodeBlock.of("{$S, $S, $S, $S, $S, $L}", s.name() + "()",
                        o.kind().method() + (s.grouped() ? " (grouped)" : ""), describeBuffers(o),
                        describeOffsets(o), describeCount(o), path(o)));
            }
        }
        CodeBlock.Builder code = CodeBlock.builder()
                .add("return $T.describe($N, $N + $S, new $T[][] {$>$>", SUPPORT, name("comm"),
                        name("PIPELINE"), " (" + registration + " registration)", String.class)
                .add(rows.isEmpty() ? "" : "\n")
                .add(CodeBlock.join(rows, ",\n"))
                .add("}");
        for (BufferDecl b : model.buffers()) {
            if (b.isWindow()) {
                code.add(",\n$T.windowHelpers($S, $L, $N)", SUPPORT, b.name(), b.windowSymmetric(),
                        name(b.name() + "Window"));
            }
        }
        code.add(");\n$<$<");
        return MethodSpec.methodBuilder("describe")
                .addAnnotation(Override.class)
                .addModifiers(Modifier.PUBLIC)
                .returns(String.class)
                .addCode(code.build())
                .build();
    }

    String describeBuffers(OpDecl o) {
        String peer = o.kind().isPointToPoint()
                ? "peer " + (o.peer() == Peer.ABSOLUTE ? "rank " + o.peerRank() : o.peer().name().toLowerCase(java.util.Locale.ROOT))
                : "";
        switch (o.kind()) {
            case SEND: return o.send() + " -> " + peer;
            case RECV: return peer + " -> " + o.recv();
            default: return o.send() + " -> " + o.recv() + (o.kind().hasRoot() ? " (root " + o.root() + ")" : "");
        }
    }

    String describeOffsets(OpDecl o) {
        List<String> offsets = new ArrayList<>();
        for (Side side : sides(o)) {
            offsets.add(Long.toString(side.offset()));
        }
        return String.join(" -> ", offsets);
    }

    String describeCount(OpDecl o) {
        return o.count() + " x " + typeOf(o) + (o.kind().reduces() ? " " + o.op() : "");
    }

    /** The registration path as Java: a literal when fixed at compile time, else a call to path(...). */
    CodeBlock path(OpDecl o) {
        if (!model.registers()) {
            return CodeBlock.of("$S", "none: Registration.NONE, the library copies through its own buffers");
        }
        for (Side side : sides(o)) {
            if (!model.isRegistered(side.buffer())) {
                return CodeBlock.of("$S", "none: `" + side.buffer().name() + "` is declared registered = false");
            }
        }
        boolean mtls = model.mtlinkSharp() && o.kind().sharpServed();
        boolean ibs = model.ibSharp() && o.kind().sharpServed();
        String how = registration == Registration.GRAPH ? "registered when the step's graph was captured"
                : "registered once at bind (mcclCommRegister)";
        return CodeBlock.of("$T.registrationPath($N, $L, $L, $S)", SUPPORT, name("comm"), mtls, ibs, how);
    }

    MethodSpec close() {
        MethodSpec.Builder c = MethodSpec.methodBuilder("close")
                .addAnnotation(Override.class)
                .addModifiers(Modifier.PUBLIC)
                .addJavadoc("Releases graphs first (R5), then registrations and windows (R6, R12), then memory. "
                        + "Idempotent.\n")
                .beginControlFlow("if ($N)", name("closed"))
                .addStatement("return")
                .endControlFlow()
                .addStatement("$N = true", name("closed"));
        Map<String, List<String>> groups = new LinkedHashMap<>();
        groups.put("musaGraphExecDestroy(instance); musaGraphDestroy(graph): graphs before their buffers (R5)",
                graphs);
        groups.put("mcclCommDeregister(comm, handle) (R6)", registrations);
        groups.put("mcclCommWindowDeregister(comm, win): collective (R12)", windows);
        groups.put("mcclMemFree(buffer)", roots);
        groups.values().removeIf(List::isEmpty);
        if (groups.isEmpty()) {
            return c.build();
        }
        List<CodeBlock> released = new ArrayList<>();
        groups.forEach((comment, resources) -> released.add(CodeBlock.of("// $L\n$L", comment,
                String.join(", ", resources))));
        return c.addCode("$T.closeInOrder(\n$>$>$L);\n$<$<", SUPPORT, CodeBlock.join(released, ",\n"))
                .build();
    }
}
