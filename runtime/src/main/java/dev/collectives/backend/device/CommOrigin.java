package dev.collectives.backend.device;

import dev.collectives.runtime.Peers;
import java.util.Optional;

/**
 * Where a communicator's native handle came from, and what follows from it: whether this library made the handle,
 * and so finalizes, destroys and aborts it, and whether every rank runs this library, so that the checks across
 * ranks (bind's agreement, the per-call check) can run over the communicator.
 */
final class CommOrigin {
    /** Made here, among ranks of this library: joined through a rendezvous, local, or a child of either. */
    static final CommOrigin MADE_HERE = new CommOrigin(true, null);

    private final boolean owned;
    /** Why the checks across ranks are off; null when they run. */
    private final String checksOff;

    private CommOrigin(boolean owned, String checksOff) {
        this.owned = owned;
        this.checksOff = checksOff;
    }

    /** Made here from a unique id made elsewhere; {@code peers} from {@code COLLECTIVES_PEERS}. */
    static CommOrigin fromUniqueId(Peers peers) {
        return new CommOrigin(
                true,
                peers == Peers.FOREIGN
                        ? "the communicator was formed from a unique id made elsewhere, and its other ranks may not"
                                + " run this library (" + Peers.VARIABLE + "=foreign, the default); set "
                                + Peers.VARIABLE + "=collectives where every rank does"
                        : null);
    }

    /** A handle another library made and owns. */
    static CommOrigin borrowed(Peers peers) {
        return new CommOrigin(
                false,
                peers == Peers.FOREIGN
                        ? "the communicator wraps a handle another library made, and its other ranks may not run"
                                + " this library (Peers.FOREIGN); wrap it with Peers.COLLECTIVES where every rank does"
                        : null);
    }

    /** A child of a communicator of this origin (split, shrink): made here, among the same kind of ranks. */
    CommOrigin child() {
        return owned ? this : new CommOrigin(true, checksOff);
    }

    /** Whether this library made the handle, and so finalizes, destroys or aborts it. */
    boolean owned() {
        return owned;
    }

    /** Why the checks across ranks are off; empty when they run. */
    Optional<String> crossRankChecksOff() {
        return Optional.ofNullable(checksOff);
    }
}
