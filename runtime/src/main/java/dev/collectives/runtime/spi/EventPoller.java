package dev.collectives.runtime.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that settles every {@link PolledEvent#whenDone()} future of the JVM: a daemon that asks each
 * watched event whether it is done (or its communicator failed), parks while it watches none, and backs off from
 * 10 µs to 2 ms between rounds in which nothing settled, so that idle watching costs next to nothing.
 */
final class EventPoller {
    private static final long FIRST_PAUSE_NANOS = 10_000;
    private static final long LONGEST_PAUSE_NANOS = 2_000_000;
    private static final ConcurrentLinkedQueue<PolledEvent> ARRIVALS = new ConcurrentLinkedQueue<>();
    private static final Thread THREAD = start();

    private EventPoller() {}

    static void watch(PolledEvent event) {
        ARRIVALS.add(event);
        LockSupport.unpark(THREAD);
    }

    private static Thread start() {
        Thread thread = new Thread(EventPoller::run, "collectives-event-poller");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void run() {
        List<PolledEvent> watched = new ArrayList<>();
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            for (PolledEvent e; (e = ARRIVALS.poll()) != null; ) {
                watched.add(e);
                pause = FIRST_PAUSE_NANOS;
            }
            if (watched.isEmpty()) {
                LockSupport.park(EventPoller.class);
                continue;
            }
            int before = watched.size();
            watched.removeIf(PolledEvent::pollForFuture);
            if (watched.size() < before) {
                pause = FIRST_PAUSE_NANOS;
            } else {
                LockSupport.parkNanos(EventPoller.class, pause);
                pause = Math.min(2 * pause, LONGEST_PAUSE_NANOS);
            }
        }
    }
}
