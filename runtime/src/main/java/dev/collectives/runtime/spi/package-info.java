/**
 * For backend implementers, not for users: helpers a {@link dev.collectives.runtime.Backend} builds on, such as
 * {@link dev.collectives.runtime.spi.RankThreads} (one thread per rank, failing the others when one fails),
 * {@link dev.collectives.runtime.spi.PolledEvent} (an event settled by one shared polling thread),
 * {@link dev.collectives.runtime.spi.ChildCommunicators} (the children of split and shrink, closed before their
 * parent), {@link dev.collectives.runtime.spi.Joined} (the rank that {@code join} returns),
 * {@link dev.collectives.runtime.spi.HostStaging} (pinned host memory a check can allgather in place) and
 * {@link dev.collectives.runtime.spi.HostMemory} (host memory at raw addresses: the sim's device memory).
 * <p>What belongs here: a helper that backends use and generated code never names. What generated code calls, and
 * the rule checks it shares with the backends, belong in {@code dev.collectives.runtime.internal}.
 */
package dev.collectives.runtime.spi;
