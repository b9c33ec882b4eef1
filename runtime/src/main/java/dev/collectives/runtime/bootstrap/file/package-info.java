/**
 * The rendezvous over a shared directory ({@code file:/dir}): the ranks meet through files, authenticated with the
 * job token; it can tell no death, so a rank's failure ends the job. Not API.
 */
package dev.collectives.runtime.bootstrap.file;
