package dev.collectives.annotation;

/**
 * What a {@link Registration#GRAPH} step with parameters does once its graph cache proves too small for the
 * argument tuples it is called with ({@link CollectivePipeline#graphCacheOverflow()}).
 */
public enum GraphCacheOverflow {
    /** Log one warning per step to the {@code System.Logger} {@code dev.collectives}, and go on capturing. */
    WARN,
    /** Throw instead of capturing again a graph the cache evicted; calls with a held tuple still launch it. */
    FAIL
}
