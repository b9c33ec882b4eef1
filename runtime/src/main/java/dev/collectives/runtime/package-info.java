/**
 * The runtime API that users and generated pipelines program against: {@link dev.collectives.runtime.Backends} and
 * {@link dev.collectives.runtime.Backend} to open a {@link dev.collectives.runtime.LocalCluster} or join a
 * multi-process job, {@link dev.collectives.runtime.Communicator} (collectives, registration, windows, memory),
 * {@link dev.collectives.runtime.Stream}, {@link dev.collectives.runtime.DeviceBuffer}, graphs, the
 * {@link dev.collectives.runtime.Pipeline} every generated class implements,
 * {@link dev.collectives.runtime.FlightRecord} (what a communicator's flight recorder holds, from
 * {@link dev.collectives.runtime.Communicator#flightRecord()}), and
 * {@link dev.collectives.runtime.CollectivesException}, which carries the broken rule or the library's result.
 */
package dev.collectives.runtime;
