package dev.collectives.backend.sim;

import java.net.ProtocolException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The communicators of one process's rank that share its {@link Wire}: the job's communicator and the children
 * split or shrunk from it. Each message goes to the group its key names; a message for a group this rank is not
 * in (another color's child) or no longer in (a child it closed) is dropped. A child attaches on the wire's pump
 * thread, in the round that decides it, so that it is there before any other rank can send it a message.
 */
final class WireGroups implements Wire.Receiver {
    private final Map<Long, WireGroup> groups = new ConcurrentHashMap<>();

    void attach(WireGroup group) {
        groups.put(group.id(), group);
    }

    void detach(WireGroup group) {
        groups.remove(group.id(), group);
    }

    @Override
    public void deliver(int sender, byte type, Wire.Key key, byte[] body) throws ProtocolException {
        WireGroup group = groups.get(key.group());
        if (group != null) {
            group.received(sender, type, key, body);
        }
    }

    /** A rank died: every communicator it is in fails, naming it; the others go on. */
    @Override
    public void gone(int rank, String reason) {
        List.copyOf(groups.values()).stream()
                .filter(group -> group.holds(rank))
                .forEach(group -> group.rankGone(rank, reason));
    }

    /** The link broke: every communicator on it fails. */
    @Override
    public void failed(String reason) {
        List.copyOf(groups.values()).forEach(group -> group.brokenLink(reason));
    }
}
