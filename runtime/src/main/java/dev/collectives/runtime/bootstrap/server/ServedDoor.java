package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.time.Duration;

/**
 * The door of a job's server ({@link ServedJob}) as its {@link TcpAdmission} sees it: whom to admit as which rank, and
 * taking in those admitted. On the server's loop thread.
 */
final class ServedDoor implements Door {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final ServedJob job;

    ServedDoor(ServedJob job) {
        this.job = job;
    }

    @Override
    public boolean hostedByRankZero() {
        return job.server.hostedByRankZero;
    }

    @Override
    public Duration heartbeatTimeout() {
        return job.heartbeatTimeout;
    }

    @Override
    public String ended() {
        return job.fatal != null ? "the job at " + job.server.endpoint() + " ended: " + job.fatal.text() : null;
    }

    /** Once every rank missing has been told, no one is left to answer and a closed server stops listening. */
    @Override
    public void toldLate(int rank) {
        job.roster.toldLate(rank);
        if (job.closed && !job.roster.lateRanksUntold()) {
            job.loop.stopListening();
        }
    }

    @Override
    public String claim(int rank, int size, String from, boolean replacement) {
        return replacement ? job.roster.claimReplacement(rank, size, from) : job.roster.claim(rank, size, from);
    }

    @Override
    public Slot seat(ServerConnection connection, int rank, FrameRules.Claim claim) {
        Slot slot = switch (claim) {
            case GROW -> job.roster.admitJoining(connection.from, connection);
            case REPLACE -> job.roster.replace(rank, connection.from, connection);
            default -> job.roster.join(rank, connection.from, connection);
        };
        connection.slot = slot;
        job.observer.joined(
                slot.rank,
                connection.from,
                claim == FrameRules.Claim.GROW
                        ? JobObserver.Arrival.JOINER
                        : claim == FrameRules.Claim.REPLACE
                                ? JobObserver.Arrival.REPLACEMENT
                                : JobObserver.Arrival.LAUNCHED,
                System.nanoTime());
        if (claim != FrameRules.Claim.JOIN) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> (claim == FrameRules.Claim.GROW
                                    ? "a process that joins at the next growth, as rank " + slot.rank
                                    : "a replacement of rank " + slot.rank)
                            + " came to " + job.server.endpoint());
        }
        return slot;
    }

    /** If the job ended while it was being admitted, it is told why instead of being served. */
    @Override
    public void seated(Slot slot) {
        Cause ended = job.closed
                ? Cause.of(Cause.Kind.SERVER_ENDED, "the rendezvous at " + job.server.endpoint() + " was closed")
                : job.fatal;
        if (ended != null) {
            job.tellEnded(slot, ended);
            job.closeSoon(slot.connection);
            return;
        }
        job.liveness.heard(slot.rank);
        job.advance();
    }

    @Override
    public void refused(Cause what) {
        job.observer.refused(what.text(), System.nanoTime());
        byte[] bytes = what.bytes();
        job.roster.slots().forEach(slot -> job.send(slot, FrameType.REFUSED, bytes));
    }

    @Override
    public String exclusion(int rank) {
        Slot slot = job.roster.slot(rank);
        return slot != null ? slot.exclusion : null;
    }

    @Override
    public void endJob(Cause reason) {
        job.endJob(reason);
    }

    @Override
    public void admitDumper(ServerConnection connection) {
        job.dumps.admitted(connection);
    }
}
