/**
 * The job's server: one event-loop thread that admits every member, serves its operations, watches its beats,
 * declares the silent dead and tells every member of each death; beside it, the job's view for people (the hang
 * verdict, the page and its metrics). It knows nothing of the member side but the wire; not API.
 */
package dev.collectives.runtime.bootstrap.server;
