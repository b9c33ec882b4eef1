/**
 * For backend implementers, not for users: helpers a {@link dev.collectives.runtime.Backend} builds on, such as
 * {@link dev.collectives.runtime.spi.RankThreads} (one thread per rank, failing the others when one fails),
 * {@link dev.collectives.runtime.spi.PolledEvent} (an event settled by one shared polling thread),
 * {@link dev.collectives.runtime.spi.ChildCommunicators} (the children of split and shrink, closed before their
 * parent) and
 * {@link dev.collectives.runtime.spi.Joined} (the rank that {@code join} returns).
 */
package dev.collectives.runtime.spi;
