package dev.collectives.backend.sim;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One call of a {@link WireGroup} as the wire's rounds decide it: complete when all parties' messages came, failed
 * at the first give-up. Its fields change under the group's monitor.
 */
final class WireMeeting {
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
