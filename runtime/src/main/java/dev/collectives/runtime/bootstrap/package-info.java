/**
 * Multi-process jobs: {@link dev.collectives.runtime.bootstrap.Bootstrap} says who this process is (from a builder,
 * system properties, {@code COLLECTIVES_*} variables or the launcher's) and where the ranks meet; a
 * {@link dev.collectives.runtime.bootstrap.Rendezvous} over TCP ({@code tcp://host:port}) or a shared directory
 * ({@code file:/dir}), authenticated with the job token, carries the communicator's unique id and small values
 * before any communicator exists. Failures are {@link dev.collectives.runtime.bootstrap.BootstrapException}s. A job
 * whose ranks form their communicator from a {@link dev.collectives.runtime.bootstrap.UniqueId} made elsewhere (CuPy,
 * PyTorch) has no rendezvous; {@link dev.collectives.runtime.bootstrap.Peers} says whether every rank runs this
 * library. A process started in the place of a rank that died joins a running TCP job as its replacement
 * ({@code COLLECTIVES_REPLACEMENT=1}), and the survivors meet it ({@link
 * dev.collectives.runtime.bootstrap.Rendezvous#reunite}).
 */
package dev.collectives.runtime.bootstrap;
