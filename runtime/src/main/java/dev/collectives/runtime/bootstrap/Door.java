package dev.collectives.runtime.bootstrap;

import java.io.IOException;
import java.time.Duration;

/**
 * The server of a TCP job ({@link JobServer}) as its {@link TcpAdmission} sees it. It decides whom to admit as
 * which rank, and takes in those admitted.
 */
interface Door {
    /** Whether rank 0's process hosts the server (else it runs in a process of its own); the greeting says so. */
    boolean hostedByRankZero();

    /** Why a peer that holds the token cannot join any more, or null while the job is forming or formed. */
    String ended();

    /** {@code rank} (as it claims) was turned away with why the job ended. */
    void toldLate(int rank);

    /**
     * Claims rank {@code rank} for the authenticated peer at {@code from}, a {@code replacement} of a rank that died
     * or not; returns why it cannot be that rank of this job, or null.
     */
    String claim(int rank, int size, String from, boolean replacement);

    /**
     * Claims a number for the authenticated peer at {@code from}, which joins the job at its next growth: the lowest
     * after the job's ranks that no other process waiting to join holds. Returns it.
     */
    int claimJoining(String from);

    /** Gives up the claim of a peer that could not be told it was admitted: it may try again. */
    void unclaim(int rank);

    /**
     * The admitted {@code member} becomes rank {@code rank} as its {@code claim} says: a rank of the job, the
     * replacement of one that died, or a process waiting to join at the next growth. {@code answer} tells it so first,
     * while nothing the server tells its members can pass between that answer and its seat (a member that returned
     * from its join hears of every claim turned away after it).
     */
    void join(int rank, Channel member, FrameRules.Claim claim, Answer answer) throws IOException;

    /** What the admission writes to a peer it admitted. */
    @FunctionalInterface
    interface Answer {
        void send() throws IOException;
    }

    /** Ends the job for {@code reason}, once: an authenticated peer that cannot be a member means a wrong launch. */
    void endJob(Cause reason);

    /** How long a member may be silent before it is declared dead, as the greeting says. */
    Duration heartbeatTimeout();

    /** A claim to join was turned away without ending the job ({@code what} says whose and why): news to the members. */
    void refused(Cause what);

    /** Why rank {@code rank} was excluded from the job, or null if it was not: a rank whose connection ended asks. */
    String exclusion(int rank);
}
