package dev.collectives.runtime.internal;

/**
 * The ops of one step of a pipeline for one tuple of its parameters, issued on the step's stream. A
 * {@link GraphCache} runs it under capture, once per tuple; the arguments are in the step's parameter order.
 */
@FunctionalInterface
public interface StepBody {
    /** Issues the step's ops for the arguments {@code args}. */
    void issue(long[] args);
}
