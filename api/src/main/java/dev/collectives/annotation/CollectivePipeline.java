package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a pipeline of collectives. The processor generates {@code Collective<Name>} beside the interface,
 * with {@code bind(comm, stream, externals...)} (or {@code binder(comm, stream)} when it has {@link Dim dims}), one
 * accessor per buffer, one method per step, and close().
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface CollectivePipeline {
    /**
     * How the buffers are registered: {@link Registration#GRAPH}, {@link Registration#LOCAL} or
     * {@link Registration#NONE}.
     */
    Registration registration();

    /** The SHARP accelerations the pipeline asks for; where the hardware lacks one, its ops take the general path. */
    Acceleration[] acceleration() default {};

    /**
     * Opt-in to registering {@link Allocator#LEGACY} buffers (R9); bind still needs
     * NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1.
     */
    boolean allowLegacyRegistration() default false;

    /** The world size, when known: enables size checks of allgather, reducescatter and alltoall at compile time. */
    int ranks() default 0;

    /**
     * {@link Registration#GRAPH} only: how many graphs each step with parameters keeps, one per distinct argument
     * tuple, captured on the first call with it (or at bind, see {@link Capture}); beyond it the least recently used
     * graph is destroyed. A cache too small for the tuples a step cycles through captures again on almost every call
     * (see {@link #graphCacheOverflow()}); {@code describe()} shows each cache's counts.
     */
    int graphCache() default 16;

    /**
     * {@link Registration#GRAPH} only: what a step with parameters does once its graph cache proves too small, that
     * is once it has captured again, after evicting them, as many graphs as {@link #graphCache()} holds (a larger
     * cache would have launched those instead). {@link GraphCacheOverflow#WARN} logs one warning per step naming the
     * distinct argument tuples seen and the {@code graphCache} to set, and {@code describe()} says the same;
     * {@link GraphCacheOverflow#FAIL} throws that text from the call that would capture again, and from every
     * later one, on every rank alike (the ranks call a step with the same arguments, R14).
     */
    GraphCacheOverflow graphCacheOverflow() default GraphCacheOverflow.WARN;

    /**
     * Whether the processor plans each step, issuing fewer, larger calls where that changes no buffer's contents:
     * consecutive ops of one kind (allreduce; reduce or broadcast with one root), type and reduce op whose send
     * ranges lie end to end in one buffer, and whose recv ranges do too in the same order, become one call over the
     * union (<em>fusion</em>); consecutive ops proven independent, none writing a byte another reads or writes, are
     * issued in one group (<em>aggregation</em>). Registration is the same either way: the same buffers are
     * registered or captured. {@code describe()} prints each step's plan and why ops that look fusable were not
     * fused. {@code false} issues every step's ops one by one in the order written; {@link WrittenOrder} does that
     * for one step.
     */
    boolean plan() default true;
}
