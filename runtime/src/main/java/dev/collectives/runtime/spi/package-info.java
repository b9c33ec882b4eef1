/**
 * For backend implementers, not for users: helpers a {@link dev.collectives.runtime.Backend} builds on, such as
 * {@link dev.collectives.runtime.spi.RankThreads} (one thread per rank, failing the others when one fails),
 * {@link dev.collectives.runtime.spi.PolledEvent} (an event settled by one shared polling thread),
 * {@link dev.collectives.runtime.spi.ChildCommunicators} (the children of split and shrink, closed before their
 * parent),
 * {@link dev.collectives.runtime.spi.Joined} (the rank that {@code join} returns),
 * {@link dev.collectives.runtime.spi.FlightRecorder} (a communicator's ring of its last operations, which a backend
 * feeds with each call it issues and its abort and close, and streams with each synchronize), with
 * {@link dev.collectives.runtime.spi.StepContext} (the step a thread is in, which {@code runtime.internal} sets for
 * generated code) and {@link dev.collectives.runtime.spi.FlightEvents} (the JDK Flight Recorder events).
 */
package dev.collectives.runtime.spi;
