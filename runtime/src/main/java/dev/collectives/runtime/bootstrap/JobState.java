package dev.collectives.runtime.bootstrap;

import java.util.EnumMap;
import java.util.Map;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One rank's view of its job's phase, and the one table of how each event moves it ({@link #on}). Every transition is
 * a JFR event ({@code dev.collectives.JobPhase}, enabled by the runtime's {@code collectives.jfc}) and a log record at
 * DEBUG (logger {@code dev.collectives.bootstrap}); an event the table does not allow in the phase is refused, saying
 * both. Thread-safe: the watcher's thread hears deaths and the job's end while the rank's own thread operates.
 */
public final class JobState {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    /** Where the job is, as this rank sees it. */
    public enum Phase {
        /** The rank is on its way in: it connects, proves the job token, claims its rank. */
        JOINING("joining"),
        /**
         * A replacement of a rank that died, or a process that joins at the job's next growth, was admitted: it waits
         * for the members to take it in at their reunion or growth, which it then takes part in.
         */
        AWAITING_TAKE_IN("waiting to be taken in"),
        /** Operations are served among every rank of the job. */
        RUNNING("running"),
        /** The job is watched while the communicator lives: only its news comes. */
        WATCHED("watched"),
        /** The watch heard of a rank's death: the survivors may meet. */
        RANK_DIED("a rank died"),
        /** The survivors met again: operations are served among them. */
        SURVIVORS_MET("the survivors met"),
        /** The survivors' reunion waits for the replacements of the ranks that died. */
        AWAITING_REPLACEMENTS("awaiting replacements"),
        /** The members' growth waits for the processes that join. */
        GROWING("growing"),
        /** The job ended for this rank (it failed, or heard that the job ended). */
        ENDED("ended"),
        /**
         * The server excluded this rank from the job (it was silent past the heartbeat timeout, or sent what a member
         * may not): the others go on without it, and it may come back only as a replacement.
         */
        EXCLUDED("excluded"),
        CLOSED("closed");

        /** For messages: "a rank died". */
        public final String words;

        Phase(String words) {
            this.words = words;
        }
    }

    /** What happens to the job, as this rank learns it. */
    public enum Event {
        /** The rank was admitted as a rank of the job. */
        JOINED,
        /** A replacement, or a process that joins, was admitted: the members take it in at their next reunion or growth. */
        ADMITTED,
        /** The rank watches its job from now on. */
        WATCH,
        /** The watch heard of a rank's death. */
        DEATH,
        /** The rank stops watching its job, whose ranks are alive, to take part in operations again (a growth). */
        UNWATCH,
        /** The survivors of a death resume operations among them. */
        RESUME,
        /** The rank takes part in a reunion with the replacements of the dead ranks. */
        REUNION,
        /** The reunion took the replacements in: every rank of the job serves operations again. */
        REUNITED,
        /** The rank takes part in a growth of the job: its members and the processes that join. */
        GROW,
        /** The growth ended: the job grew, or goes on at its size before (the event's detail says why). */
        GROWN,
        /** The job ended for this rank: it failed, or heard that the job ended. */
        END,
        /** The server told this rank, or answered its question, that it was excluded from the job. */
        EXCLUDED,
        /** The rank closed its rendezvous. */
        CLOSE
    }

    /** The table: each phase's next phase per event; an event missing from a phase's row is refused there. */
    private static final Map<Phase, Map<Event, Phase>> TABLE = new EnumMap<>(Phase.class);

    static {
        row(Phase.JOINING, Event.JOINED, Phase.RUNNING, Event.ADMITTED, Phase.AWAITING_TAKE_IN);
        row(
                Phase.AWAITING_TAKE_IN,
                Event.REUNION,
                Phase.AWAITING_TAKE_IN,
                Event.GROW,
                Phase.AWAITING_TAKE_IN,
                Event.REUNITED,
                Phase.RUNNING,
                Event.GROWN,
                Phase.RUNNING);
        row(
                Phase.RUNNING,
                Event.WATCH,
                Phase.WATCHED,
                Event.REUNION,
                Phase.AWAITING_REPLACEMENTS,
                Event.GROW,
                Phase.GROWING);
        row(Phase.WATCHED, Event.DEATH, Phase.RANK_DIED, Event.UNWATCH, Phase.RUNNING);
        row(Phase.RANK_DIED, Event.RESUME, Phase.SURVIVORS_MET);
        row(
                Phase.SURVIVORS_MET,
                Event.WATCH,
                Phase.WATCHED,
                Event.REUNION,
                Phase.AWAITING_REPLACEMENTS,
                Event.GROW,
                Phase.GROWING);
        row(Phase.AWAITING_REPLACEMENTS, Event.REUNITED, Phase.RUNNING);
        row(Phase.GROWING, Event.GROWN, Phase.RUNNING);
        row(Phase.ENDED, Event.DEATH, Phase.ENDED, Event.EXCLUDED, Phase.ENDED); // the first outcome stays
        row(Phase.EXCLUDED, Event.DEATH, Phase.EXCLUDED, Event.END, Phase.EXCLUDED, Event.EXCLUDED, Phase.EXCLUDED);
        row(
                Phase.CLOSED,
                Event.DEATH,
                Phase.CLOSED,
                Event.END,
                Phase.CLOSED,
                Event.EXCLUDED,
                Phase.CLOSED,
                Event.CLOSE,
                Phase.CLOSED);
        for (Phase phase : Phase.values()) {
            // the job may end, the rank be excluded, and the rank close, in every phase
            TABLE.get(phase).putIfAbsent(Event.END, Phase.ENDED);
            TABLE.get(phase).putIfAbsent(Event.EXCLUDED, Phase.EXCLUDED);
            TABLE.get(phase).putIfAbsent(Event.CLOSE, Phase.CLOSED);
        }
    }

    private static void row(Phase phase, Object... eventsAndNext) {
        Map<Event, Phase> row = TABLE.computeIfAbsent(phase, p -> new EnumMap<>(Event.class));
        for (int i = 0; i < eventsAndNext.length; i += 2) {
            row.put((Event) eventsAndNext[i], (Phase) eventsAndNext[i + 1]);
        }
    }

    /** The phase {@code event} moves {@code phase} to, or null where the table refuses it. */
    static Phase next(Phase phase, Event event) {
        return TABLE.get(phase).get(event);
    }

    private final int rank;
    private Phase phase = Phase.JOINING;
    /** What the last event said (a death, why the job ended), or null. */
    private String news;

    JobState(int rank) {
        this.rank = rank;
    }

    public synchronized Phase phase() {
        return phase;
    }

    /** What the event that led to this phase said: the death of {@link Phase#RANK_DIED}, why the job ended. */
    public synchronized String news() {
        return news;
    }

    /**
     * Moves the job on by {@code event}, which {@code detail} describes (a death, why the job ended; or null), and
     * returns the new phase; refuses an event the table does not allow in the current phase. The first reason the job
     * ended stays its news.
     */
    public synchronized Phase on(Event event, String detail) {
        Phase from = phase;
        Phase to = next(from, event);
        if (to == null) {
            throw new IllegalStateException(
                    "rank " + rank + ": the job is " + from.words + ", where " + event + " cannot happen");
        }
        phase = to;
        if (detail != null && to != from) { // the first reason the job ended stays
            news = detail;
        }
        LOG.log(
                System.Logger.Level.DEBUG,
                () -> "rank " + rank + ": " + from.words + " --" + event + "--> " + to.words
                        + (detail == null ? "" : " (" + detail + ")"));
        PhaseEvent flight = new PhaseEvent();
        if (flight.shouldCommit()) {
            flight.rank = rank;
            flight.from = from.words;
            flight.event = event.name();
            flight.to = to.words;
            flight.detail = detail;
            flight.commit();
        }
        return to;
    }

    @Name("dev.collectives.JobPhase")
    @Label("Job Phase")
    @Category("Collectives")
    @Description("A rank's view of its multi-process job moved from one phase to another")
    @StackTrace(false)
    static final class PhaseEvent extends jdk.jfr.Event {
        @Label("Rank")
        int rank;

        @Label("From")
        String from;

        @Label("Event")
        String event;

        @Label("To")
        String to;

        @Label("Detail")
        String detail;
    }
}
