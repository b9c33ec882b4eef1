package dev.collectives.backend.device;

import java.time.Duration;
import org.bytedeco.javacpp.LongPointer;

/**
 * Native memory for a handle that the library stores when its work completes: a new communicator (init, split,
 * shrink) or a window. On a non-blocking communicator that is after the call returned, from the library's own
 * thread, so the slot is neither a Java array (JavaCPP passes a copy, released when the call returns) nor a slot on
 * the shim's stack: a store into either corrupts memory. It is freed once the work has settled; where the wait for
 * it was given up (timed out, aborted) it stays allocated, as the library may still store into it.
 */
final class NativeSlot implements AutoCloseable {
    private final LongPointer pointer = new LongPointer(1);
    private boolean settled;

    NativeSlot() {
        pointer.put(0L);
    }

    /** What the library is given to store into. */
    LongPointer pointer() {
        return pointer;
    }

    /** What it holds now: for an init, the handle the library stores before it returns "in progress". */
    private long peek() {
        return pointer.get();
    }

    /** The work has completed (or failed): what the library stored, which it no longer changes. */
    private long settled() {
        settled = true;
        return pointer.get();
    }

    /**
     * What {@code call} on {@code comm} (a split, a shrink, a window registration) stored, once the library's group
     * job that makes it has ended, which {@code comm}'s state says. On a non-blocking communicator NCCL (2.28) answers
     * success while that job still runs, and stores into the slot when it ends: success is waited on as "in
     * progress" is (on a blocking communicator the state says done at the first poll).
     */
    long afterGroupJob(NativeComm comm, int rc, String call) {
        int answer = rc == 0 ? InProgress.CODE : rc;
        return after(answer, () -> comm.complete(answer, call));
    }

    /**
     * The handle, once the call that answered {@code rc} has completed: {@code completion} waits for it where
     * {@code rc} says "in progress", and otherwise returns or throws at once (nothing is stored later then).
     */
    private long after(int rc, Runnable completion) {
        settled = rc != InProgress.CODE;
        completion.run();
        return settled();
    }

    /**
     * The communicator that {@code call} (an init or a grow: it stores the handle before it returns), answering
     * {@code rc}, made for rank {@code rank} of {@code size}: once formed, which every rank must reach within
     * {@code timeout} ({@link InProgress#awaitFormed}), unless {@code stillWanted} throws first; a failure throws
     * naming the call.
     */
    long formed(
            NativeLibrary library,
            int rc,
            String call,
            int rank,
            int size,
            Waits waits,
            Duration timeout,
            Runnable stillWanted) {
        return after(rc, () -> {
            if (rc == InProgress.CODE) {
                InProgress.awaitFormed(
                        library, peek(), library.dialect.ccl(call), rank, size, waits, timeout.toNanos(), stillWanted);
            } else {
                library.check(rc, rank, peek(), call);
            }
        });
    }

    @Override
    public void close() {
        if (settled) {
            pointer.close();
        } else {
            pointer.deallocate(false); // 8 bytes left to a library that may still store into them
        }
    }
}
