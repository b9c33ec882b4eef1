package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a pipeline of collectives. The processor generates {@code Collective<Name>} beside the interface,
 * with {@code bind(comm, stream, externals...)}, one accessor per buffer, one method per step, and close().
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface CollectivePipeline {
    Registration registration();

    Acceleration[] acceleration() default {};

    /** Opt-in to registering {@link Allocator#LEGACY} buffers (R9); bind still needs MCCL_LEGACY_MUSA_REGISTER=1. */
    boolean allowLegacyRegistration() default false;

    /** The world size, when known: enables size checks of allgather, reducescatter and alltoall at compile time. */
    int ranks() default 0;
}
