package dev.collectives.backend.device;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The library's groups ({@code GroupStart} … {@code GroupEnd}) open on each thread, and the communicators that
 * enqueued work in them: where non-blocking communicators answer "in progress" at the outermost end, it waits for
 * each of them.
 */
final class OpenGroups {
    /** A communicator that enqueues in a group: the group's end completes it. */
    interface Member {
        /** Completes {@code call}, whose native answer was {@code rc}: "in progress" waits until it is done. */
        void complete(int rc, String call);
    }

    /** The calling thread's group: how deep, and the communicators that enqueued work in it. */
    private static final class Group {
        int depth;
        final Set<Member> members = new LinkedHashSet<>();
    }

    private static final ThreadLocal<Group> GROUP = ThreadLocal.withInitial(Group::new);
    /** How many groups are open, on every thread: while none is, an enqueue looks up no thread's group. */
    private static final AtomicInteger OPEN = new AtomicInteger();

    private OpenGroups() {}

    /** {@code GroupStart} was called on this thread. */
    static void started() {
        GROUP.get().depth++;
        OPEN.incrementAndGet();
    }

    /** {@code member} enqueues work on this thread: inside a group, the group's end waits for it. */
    static void enqueuing(Member member) {
        if (OPEN.get() == 0) {
            return; // no thread is in a group, this one neither: its group need not be looked up
        }
        Group group = GROUP.get();
        if (group.depth > 0) {
            group.members.add(member);
        }
    }

    /**
     * {@code GroupEnd} answered {@code rc} on this thread, called through {@code through}: at the outermost end,
     * "in progress" waits for every communicator that enqueued in the group.
     */
    static void ended(Member through, int rc, String call) {
        Group group = GROUP.get();
        if (group.depth > 0) {
            group.depth--;
            OPEN.decrementAndGet();
        }
        if (group.depth > 0) {
            through.complete(rc, call);
            return;
        }
        List<Member> members = new ArrayList<>(group.members);
        group.members.clear();
        if (rc != InProgress.CODE) {
            through.complete(rc, call);
            return;
        }
        if (members.isEmpty()) {
            members.add(through);
        }
        for (Member member : members) {
            member.complete(rc, call);
        }
    }
}
