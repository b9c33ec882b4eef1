package dev.collectives.runtime.spi;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RankContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;

/**
 * Runs one body per rank, each in its own thread, for backends' {@link LocalCluster#run}. When a rank fails,
 * {@code releaseOthers} is called once (backends abort their communicators there) so that ranks blocked in a
 * collective fail instead of hanging; then the failures are thrown as one exception with a line per failed rank
 * ({@link CollectivesException#ranksFailed}), and each one's full trace is logged at {@code DEBUG} to the
 * {@code System.Logger} named {@code dev.collectives}.
 */
public final class RankThreads {
    private static final System.Logger LOG = System.getLogger("dev.collectives");

    private RankThreads() {}

    /**
     * Runs {@code body} once per rank, each on a thread of its own named after {@code threadName}, with the context
     * {@code contexts} makes for it; when a rank fails, {@code releaseOthers} lets the others go, and the failures
     * are thrown once all have ended.
     */
    public static void run(
            int ranks,
            String threadName,
            IntFunction<RankContext> contexts,
            LocalCluster.RankBody body,
            Runnable releaseOthers) {
        ConcurrentLinkedQueue<Map.Entry<Integer, Throwable>> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            RankContext context = contexts.apply(r);
            int rank = r;
            Thread thread = new Thread(
                    () -> {
                        try {
                            body.run(context);
                        } catch (Throwable t) {
                            boolean first;
                            synchronized (failures) {
                                first = failures.isEmpty();
                                failures.add(Map.entry(rank, t));
                            }
                            if (first) {
                                releaseOthers.run();
                            }
                        }
                    },
                    threadName + "-rank-" + r);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                    releaseOthers.run();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!failures.isEmpty()) {
            failures.forEach(f ->
                    LOG.log(System.Logger.Level.DEBUG, threadName + " rank " + f.getKey() + " failed", f.getValue()));
            throw CollectivesException.ranksFailed(List.copyOf(failures));
        }
    }
}
