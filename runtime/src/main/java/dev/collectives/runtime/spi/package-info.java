/**
 * For backend implementers, not for users: helpers a {@link dev.collectives.runtime.Backend} builds on, such as
 * {@link dev.collectives.runtime.spi.RankThreads} (one thread per rank, failing the others when one fails),
 * {@link dev.collectives.runtime.spi.PolledEvent} (an event settled by one shared polling thread),
 * {@link dev.collectives.runtime.spi.ChildCommunicators} (the children of split and shrink, closed before their
 * parent), {@link dev.collectives.runtime.spi.JobRanks} (the ranks of a job of processes a communicator holds, which
 * name a job's failure in the job's and the communicator's numbering), {@link dev.collectives.runtime.spi.Joined}
 * (the rank that {@code join} returns),
 * {@link dev.collectives.runtime.spi.HostStaging} (pinned host memory a check can allgather in place),
 * {@link dev.collectives.runtime.spi.HostMemory} (host memory at raw addresses: the sim's device memory) and
 * {@link dev.collectives.runtime.spi.FlightRecorder} (a communicator's ring of its last operations, which a backend
 * feeds with each call it issues and its abort and close, and streams with each synchronize), with
 * {@link dev.collectives.runtime.spi.StepContext} (the step a thread is in, which {@code runtime.internal} sets for
 * generated code) and {@link dev.collectives.runtime.spi.FlightEvents} (the JDK Flight Recorder events).
 * <p>What belongs here: a helper that backends use and generated code never names. What generated code calls, and
 * the rule checks it shares with the backends, belong in {@code dev.collectives.runtime.internal}.
 */
package dev.collectives.runtime.spi;
