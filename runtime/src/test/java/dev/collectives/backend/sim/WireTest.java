package dev.collectives.backend.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.bootstrap.Rendezvous;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The sim's wire between processes, over an in-memory rendezvous: messages of any size arrive whole, in the same
 * order on every rank; a peer that breaks the round format ends the job on every rank; the pumps stop together
 * once every rank leaves.
 */
class WireTest {
    private static final Duration LONG = Duration.ofSeconds(20);

    @Test
    void messagesOfAnySizeArriveWholeAndInTheSameOrderOnEveryRank() {
        int ranks = 3;
        Loopback job = new Loopback(ranks);
        List<Recorder> recorders = new ArrayList<>();
        List<Wire> wires = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            Recorder recorder = new Recorder();
            recorders.add(recorder);
            wires.add(new Wire(job.rank(r), recorder));
        }
        wires.forEach(Wire::start);
        Random random = new Random(42);
        List<byte[]> sent = new ArrayList<>();
        for (int m = 0; m < 12; m++) {
            int sender = m % ranks;
            byte[] body = new byte[m == 4 ? 3 * Rendezvous.MAX_VALUE_BYTES + 17 : random.nextInt(2000)];
            random.nextBytes(body);
            sent.add(body);
            wires.get(sender).send((byte) 1, new Wire.Key(0, (byte) 1, m, sender, -1), body);
        }
        // leaving waits for every rank to leave, as closing a communicator does: the ranks leave at once
        List<Thread> leaving = new ArrayList<>();
        for (Wire wire : wires) {
            leaving.add(new Thread(() -> wire.leave(LONG, "not every rank left")));
        }
        leaving.forEach(Thread::start);
        for (Thread thread : leaving) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        for (Recorder recorder : recorders) {
            assertEquals(recorders.get(0).order, recorder.order);
            assertEquals(sent.size(), recorder.order.size());
            assertEquals(null, recorder.failure);
            for (int m = 0; m < sent.size(); m++) {
                assertArrayEquals(sent.get(m), recorder.bodies.get(recorder.order.indexOf("key " + m)), "message " + m);
            }
        }
        assertTrue(job.closed == ranks, "every rank closed its rendezvous after the last round");
    }

    @Test
    void aRoundLongerThanItsBoundEndsTheJobOnEveryRank() {
        Loopback job = new Loopback(2);
        Recorder recorder = new Recorder();
        Wire wire = new Wire(job.rank(0), recorder);
        wire.start();
        // rank 1 is no wire: it announces more bytes than a round may hold
        byte[][] heads = job.rank(1)
                .allGather(ByteBuffer.allocate(8)
                        .putInt(Rendezvous.MAX_VALUE_BYTES + 1)
                        .putInt(0)
                        .array());
        assertEquals(2, heads.length);
        wire.leave(LONG, "not every rank left");
        assertTrue(
                recorder.failure.contains("rank 0 received a malformed sim message: rank 1 announced 65537 bytes"
                        + " for a round of at most 65536"),
                recorder.failure);
        assertEquals(recorder.failure, job.aborted);
    }

    @Test
    void aRankThatLeavesWhileAnotherStaysEndsTheJobAtItsTimeoutSayingSo() {
        Loopback job = new Loopback(2);
        Recorder staying = new Recorder();
        Wire leaving = new Wire(job.rank(0), new Recorder());
        Wire stays = new Wire(job.rank(1), staying);
        leaving.start();
        stays.start();
        // rank 1 leaves only after rank 0's leave returned, so rank 0 waits out its timeout; the guard catches a hang
        assertTimeoutPreemptively(
                LONG, () -> leaving.leave(Duration.ofMillis(300), "rank 0 left, rank 1 did not within 300 ms"));
        stays.leave(LONG, "unused");
        assertEquals("rank 1: rank 0 left, rank 1 did not within 300 ms", staying.failure);
    }

    /** What a rank's wire delivered: each message's key in order, and its bytes. */
    private static final class Recorder implements Wire.Receiver {
        final List<String> order = new ArrayList<>();
        final List<byte[]> bodies = new ArrayList<>();
        volatile String failure;

        @Override
        public synchronized void deliver(int sender, byte type, Wire.Key key, byte[] body) {
            order.add("key " + key.seq());
            bodies.add(body);
        }

        @Override
        public void gone(int rank, String reason) {
            failure = reason;
        }

        @Override
        public void failed(String reason) {
            failure = reason;
        }
    }

    /** The ranks of a job in one process, meeting in memory; an abort fails every rank's pending and later call. */
    private static final class Loopback {
        private final int size;
        private byte[][] contributions;
        private byte[][] result;
        private int arrived;
        private long generation;
        String aborted;
        int closed;

        Loopback(int size) {
            this.size = size;
            this.contributions = new byte[size][];
        }

        synchronized byte[][] allGather(int rank, byte[] value) {
            long mine = generation;
            contributions[rank] = value.clone();
            if (++arrived == size) {
                result = contributions;
                contributions = new byte[size][];
                arrived = 0;
                generation++;
                notifyAll();
            }
            while (generation == mine && aborted == null) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            if (generation == mine) {
                throw CollectivesException.usage(rank, aborted);
            }
            return Arrays.stream(result).map(byte[]::clone).toArray(byte[][]::new);
        }

        synchronized void abort(String reason) {
            aborted = aborted == null ? reason : aborted;
            notifyAll();
        }

        synchronized void close() {
            closed++;
        }

        Rendezvous rank(int rank) {
            return new Rendezvous() {
                @Override
                public int rank() {
                    return rank;
                }

                @Override
                public int size() {
                    return size;
                }

                @Override
                public String where() {
                    return "memory";
                }

                @Override
                public byte[] broadcast(byte[] value) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public byte[][] allGather(byte[] value) {
                    return Loopback.this.allGather(rank, value);
                }

                @Override
                public void abort(String reason) {
                    Loopback.this.abort(reason);
                }

                @Override
                public void close() {
                    Loopback.this.close();
                }
            };
        }
    }
}
