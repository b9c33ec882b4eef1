/**
 * A rank's side of a TCP rendezvous: joining (connect, retry, handshake), then one member-loop thread per process
 * that reads, writes and beats for every member of the process, the watch that hears the job's news, and the client
 * that asks for the ranks' records. It knows nothing of the server side but the wire; not API.
 */
package dev.collectives.runtime.bootstrap.member;
