package dev.collectives.runtime.bootstrap.member;

import dev.collectives.runtime.bootstrap.wire.EventLoop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that serves every member of this process ({@link TcpMember}), however many: it reads and writes
 * their control connections, beats on each and notices each server's silence, without blocking. The members' callers
 * wait on their own threads for what it hands them. News for a watched job (a death, the job's end) is told on a
 * thread of {@link #NEWS}, which exists only while there is news to tell: telling it may take the time of a question
 * to the server, and the loop never waits.
 */
public final class MemberLoop {
    /** Where watched jobs' news is told; no thread is kept while there is none. */
    static final ExecutorService NEWS = new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            1,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            EventLoop.smallDaemonThreads("collectives-job-news"));

    private static EventLoop shared;

    private MemberLoop() {}

    /** The process's member loop, started at its first member. */
    static synchronized EventLoop shared() {
        if (shared == null) {
            try {
                shared = new EventLoop("collectives-member-loop");
            } catch (IOException e) {
                throw new UncheckedIOException("no selector for the members' connections", e);
            }
            shared.startThread();
        }
        return shared;
    }
}
