/**
 * The control plane of multi-process jobs; not API: public only where the runtime's other packages need it (the
 * backends, and {@link dev.collectives.runtime.Bootstrap}), and it may change without notice. Users import the
 * multi-process API from {@code dev.collectives.runtime}: {@link dev.collectives.runtime.Bootstrap},
 * {@link dev.collectives.runtime.JoinedRank}, {@link dev.collectives.runtime.RendezvousServer},
 * {@link dev.collectives.runtime.BootstrapException} and the settings' types.
 *
 * <p>A {@link dev.collectives.runtime.bootstrap.Rendezvous} over TCP ({@code tcp://host:port}, one
 * {@link dev.collectives.runtime.bootstrap.server.JobServer} that every rank joins as a member), a shared directory
 * ({@code file:/dir}) or a host system's {@link dev.collectives.runtime.Gatherer}, authenticated with the job token,
 * carries the communicator's unique id and small values before any communicator exists, tells the ranks of deaths,
 * and lets the survivors meet again, with replacements ({@link dev.collectives.runtime.bootstrap.Rendezvous#reunite}).
 * It knows nothing of the backends.
 *
 * <p>This package holds what every part shares (the rendezvous, its phases, causes, progress, settings and timeouts)
 * and the classes that put a job together; the parts are packages of their own: {@code wire} (the framing, the
 * message table, the token, the event loop both ends run), {@code server} (the job's server), {@code member} (a
 * rank's connection to it) and {@code file} (the shared-directory rendezvous).
 */
package dev.collectives.runtime.bootstrap;
