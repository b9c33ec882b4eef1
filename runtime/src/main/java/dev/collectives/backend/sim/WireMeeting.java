package dev.collectives.backend.sim;

import dev.collectives.annotation.OpKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * One call of a {@link WireGroup} as the wire's rounds decide it: complete when all parties' messages came, failed
 * at the first give-up. Its fields change under the group's monitor.
 */
final class WireMeeting {
    /** The kinds of call, each a space of its own in the wire's keys. */
    static final byte COLLECTIVE = 1;

    static final byte WINDOW = 2;
    static final byte PAIR = 3;
    static final byte SPLIT = 4;
    static final byte SHRINK = 5;

    final Wire.Key key;
    final String what;
    final Object[] slots;
    /** The slots that stay empty: the ranks a shrink excludes. */
    final BitSet excused;

    final int parties;
    int arrived;
    boolean decided;
    CallVerdict failure;
    /** Whether this rank's own message came before the outcome (else it arrived late). */
    boolean mineInTime;
    /** This rank's place in the child that a complete split or shrink made; set in the completing round. */
    CommGroup.Member child;

    WireMeeting(Wire.Key key, String what, int slots, BitSet excused) {
        this.key = key;
        this.what = what;
        this.slots = new Object[slots];
        this.excused = excused;
        this.parties = slots - excused.cardinality();
    }

    /**
     * A call of a group of {@code size} ranks that a message announced: a pair's has two parties, its send and its
     * recv; a shrink's arrival names the ranks excused from it (a give-up has no arrival: it decides the call at once).
     */
    static WireMeeting announced(Wire.Key key, Object arrival, int size) {
        return switch (key.space()) {
            // each rank names a collective by its own flight-recorder entry (Launched#collectiveName) instead
            case COLLECTIVE -> new WireMeeting(key, "collective call", size, new BitSet());
            case WINDOW -> new WireMeeting(key, CommGroup.windowCallName(key.seq()), size, new BitSet());
            case SPLIT -> new WireMeeting(key, splitName(key.seq()), size, new BitSet());
            case SHRINK ->
                arrival == null
                        ? new WireMeeting(key, "shrink call #" + key.seq(), size, new BitSet())
                        : new WireMeeting(
                                key, shrinkName(key.seq(), (int[]) arrival), size, excused((int[]) arrival, size));
            default ->
                new WireMeeting(key, new PointToPoint.Key(key.from(), key.to(), key.seq()).toString(), 2, new BitSet());
        };
    }

    static String splitName(long seq) {
        return "split call #" + seq;
    }

    static String shrinkName(long seq, int[] excluded) {
        return "shrink call #" + seq + " (excluding ranks " + Arrays.toString(excluded) + ")";
    }

    private static BitSet excused(int[] excludedRanks, int size) {
        BitSet excused = new BitSet();
        Arrays.stream(excludedRanks).filter(r -> r >= 0 && r < size).forEach(excused::set);
        return excused;
    }

    /** A pair's slots are its send and its recv (a rank may send to itself); a collective's, the ranks. */
    static int slot(Wire.Key key, int sender, Object arrival) {
        if (key.space() != PAIR) {
            return sender;
        }
        return ((WireFormat.Contribution) arrival).op().call().kind() == OpKind.SEND ? 0 : 1;
    }

    /** Returns whether this arrival completed the call. */
    boolean arrive(int slot, boolean mine, Object arrival) {
        if (slots[slot] == null) {
            arrived++;
        }
        slots[slot] = arrival;
        if (decided) {
            return false;
        }
        mineInTime |= mine;
        decided = complete();
        return decided;
    }

    void decide(CallVerdict verdict) {
        if (!decided) {
            decided = true;
            failure = verdict;
        }
    }

    boolean complete() {
        return arrived == parties;
    }

    /** The expected slots (ranks, for a collective) whose message has come ({@code present}) or not. */
    List<Integer> ranks(boolean present) {
        List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < slots.length; r++) {
            if (!excused.get(r) && (slots[r] != null) == present) {
                ranks.add(r);
            }
        }
        return ranks;
    }
}
