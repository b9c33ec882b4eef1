/**
 * The fault driver ({@code faults}): jobs of processes, one per rank, whose last rank commits a fault (its process
 * killed, its communicator aborted, a call it never makes, a call of another size) in each registration mode, and
 * the proof that every other rank fails, naming it and the cause, instead of hanging; then the recoveries from a
 * middle rank killed ({@code RecoveryJobs}: its survivors shrink it away, or reform the job with a replacement).
 */
package dev.collectives.tools.faults;
