package dev.collectives.runtime;

/**
 * What the graph cache of one step with parameters did so far (GRAPH registration): how many graphs it captured,
 * how many calls replayed a graph it held, how many graphs it evicted, how many it holds now and how many it may
 * hold ({@code graphCache} of {@code @CollectivePipeline}). Each generated step with parameters has an accessor for
 * it.
 */
public record GraphCacheStats(long captures, long hits, long evictions, int held, int capacity) {}
