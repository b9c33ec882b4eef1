package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import java.time.Duration;

/**
 * The server of a TCP job ({@link JobServer}) as its {@link TcpAdmission} sees it: it decides whom to admit as which
 * rank, and takes in those admitted. Called on the server's loop thread only.
 */
interface Door {
    /** Whether rank 0's process hosts the server (else it runs in a process of its own); the greeting says so. */
    boolean hostedByRankZero();

    /** How long a member may be silent before it is declared dead, as the greeting says. */
    Duration heartbeatTimeout();

    /** Why a peer that holds the token cannot join any more, or null while the job is forming or formed. */
    String ended();

    /** {@code rank} (as it claims) was turned away with why the job ended. */
    void toldLate(int rank);

    /**
     * Why the authenticated peer at {@code from} cannot be rank {@code rank} of a job of {@code size}, a
     * {@code replacement} of a rank that died or not; null where it can.
     */
    String claim(int rank, int size, String from, boolean replacement);

    /**
     * Seats the admitted {@code connection} as its {@code claim} says: rank {@code rank} of the job, the replacement
     * of rank {@code rank}, which died, or a process waiting to join at the next growth (which takes the lowest number
     * after the job's ranks that no other process waiting to join holds). Nothing is sent to it yet: the admission
     * answers it first, then says it is {@link #seated}.
     */
    Slot seat(ServerConnection connection, int rank, FrameRules.Claim claim);

    /** {@code slot}'s process heard it was admitted: its messages are read from now on, and it is told the news. */
    void seated(Slot slot);

    /** Ends the job for {@code reason}, once: an authenticated peer that cannot be a member means a wrong launch. */
    void endJob(Cause reason);

    /** A claim to join was turned away without ending the job ({@code what} says whose and why): news to the members. */
    void refused(Cause what);

    /** Why rank {@code rank} was excluded from the job, or null if it was not: a rank whose connection ended asks. */
    String exclusion(int rank);

    /** The admitted {@code connection} is a client that asks for every live rank's flight record, not a rank. */
    void admitDumper(ServerConnection connection);
}
