package dev.collectives.runtime;

import java.time.Duration;

/**
 * A service that already holds the ranks of a job together and gathers one value from each: the tasks of a Spark
 * barrier stage ({@code BarrierTaskContext.allGather}), for instance. Given to {@link Bootstrap.Builder#gatherer},
 * it takes the place of a {@code tcp://} or {@code file:} rendezvous: the ranks meet through it, and no port or
 * directory of this library's is opened.
 *
 * <p>The service must end the job on every rank when one rank fails (a failed Spark task fails its barrier stage),
 * since a rank cannot tell the others through it.
 */
@FunctionalInterface
public interface Gatherer {
    /**
     * Every rank's {@code value}, indexed by rank, once every rank has passed its own; every rank calls it the same
     * number of times, in the same order. Throws, saying why in its message (e.g. which ranks did not take part),
     * when the ranks do not all take part within {@code timeout}, or when the job ended.
     */
    byte[][] gather(byte[] value, Duration timeout);
}
