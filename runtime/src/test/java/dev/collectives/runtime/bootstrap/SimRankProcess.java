package dev.collectives.runtime.bootstrap;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimCommunicator;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.Stream;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntUnaryOperator;

/**
 * One process of a sim job whose ranks are separate JVMs, started by {@link ChildRank}: joins through the
 * bootstrap's settings and runs what its argument names, printing each step and the first failure (timed from the
 * start, or from joining once joined).
 * <ul>
 *   <li>{@code ops}: every collective, send/recv in a ring, and a window, each checked against its expected data,
 *   then the seed's three examples (graph and local registration);</li>
 *   <li>{@code mismatch}: an allreduce whose count differs on rank 1 (R14 on every rank);</li>
 *   <li>{@code pair-mismatch}: rank 0 sends one element more than rank 1 receives (R14 on both);</li>
 *   <li>{@code window-mismatch}: rank 1 registers its window as not symmetric (R14 on every rank);</li>
 *   <li>{@code hang} ({@code hang-rank-0}): an allreduce that rank 1 (rank 0) never calls, waiting instead to be
 *   killed;</li>
 *   <li>{@code replace}: rank 1 waits to be killed; the others' allreduce fails naming it, they reform the job with
 *   its replacement, and all ranks allreduce on the reformed communicator; the replacement (started with
 *   {@code COLLECTIVES_REPLACEMENT=1}) joins and allreduces at once;</li>
 *   <li>{@code grow}: every rank grows the job by {@code GROW_BY} processes (started with
 *   {@code COLLECTIVES_JOINING=1}, which join at once), allreduces on the grown communicator, then shrinks the
 *   highest rank away and allreduces on the child; with {@code GROW_WITHIN} (ms) the growth may fail, and the ranks
 *   then allreduce on the job's communicator at its size;</li>
 *   <li>{@code shrink-grow}: rank 1 waits to be killed; the others' allreduce fails naming it, they shrink it away,
 *   allreduce on the child, grow it by 1 process (started with {@code COLLECTIVES_JOINING=1}, which allreduces at
 *   once) and allreduce on the grown communicator;</li>
 *   <li>{@code abort}: rank 0 aborts the communicator, then every rank calls an allreduce;</li>
 *   <li>{@code split}: children of the even and of the odd ranks, an allgather on each, a split with no color on
 *   all ranks but 0, then an allreduce on the job's communicator;</li>
 *   <li>{@code split-hang}: a split that rank 1 never calls, waiting instead to be killed;</li>
 *   <li>{@code split-death}: children of the even and of the odd ranks; rank 3 waits to be killed, while rank 1
 *   allreduces on its child and the even ranks on the job's communicator, which fail; the even ranks' child then
 *   allreduces;</li>
 *   <li>{@code settings}: prints the joined communicator's capabilities, topology and usage;</li>
 *   <li>{@code bench}: rank 0 prints a table of float32 SUM allreduce time and algorithm bandwidth (bytes per
 *   rank / time, 1 MB = 10^6 bytes) from 4 KiB to 16 MiB, best of several calls.</li>
 * </ul>
 */
public final class SimRankProcess {
    private static final int COUNT = 6;
    /** Elements of a call whose data takes several of the wire's rounds of 64 KiB. */
    private static final int LARGE_COUNT = 100_003;

    private SimRankProcess() {}

    public static void main(String[] args) throws InterruptedException {
        long start = System.nanoTime();
        long failed = 0;
        try {
            Bootstrap bootstrap = Bootstrap.fromEnvironment();
            say("STARTED " + bootstrap.describe());
            try (JoinedRank me = Backends.get("sim").join(bootstrap)) {
                say("JOINED " + me.comm());
                start = System.nanoTime(); // a failure after joining is timed from here, not from the JVM's start
                try {
                    run(args[0], me);
                } catch (CollectivesException | AssertionError e) {
                    failed = System.nanoTime(); // when the call failed; closing then waits for the other ranks
                    throw e;
                }
            }
            say("DONE");
        } catch (CollectivesException | AssertionError e) {
            long at = failed != 0 ? failed : System.nanoTime();
            say("FAILED after " + (at - start) / 1_000_000 + " ms: " + e.getMessage());
            System.exit(3);
        }
    }

    private static void run(String mode, JoinedRank me) throws InterruptedException {
        switch (mode) {
            case "ops" -> ops(me);
            case "mismatch" -> allReduce(me, me.rank() == 1 ? COUNT - 1 : COUNT);
            case "pair-mismatch" -> pairMismatch(me);
            case "window-mismatch" -> windowMismatch(me);
            case "hang" -> hang(me, 1);
            case "hang-rank-0" -> hang(me, 0);
            case "replace" -> replace(me);
            case "grow" -> grow(me);
            case "shrink-grow" -> shrinkThenGrow(me);
            case "abort" -> abort(me);
            case "split" -> split(me);
            case "split-hang" -> splitHang(me);
            case "split-death" -> splitDeath(me);
            case "settings" -> settings(me);
            case "bench" -> bench(me);
            default -> throw new IllegalArgumentException(mode);
        }
    }

    private static void ops(JoinedRank me) {
        int n = me.size();
        int r = me.rank();
        allReduce(me, COUNT);
        allReduce(me, LARGE_COUNT);
        check(
                me,
                me.comm(),
                "allGather",
                COUNT,
                COUNT * n,
                i -> r * 10 + i,
                i -> (i / COUNT) * 10 + i % COUNT,
                (c, s, v) -> c.allGather(s, v, COUNT, DataType.FLOAT32, me.stream()));
        check(
                me,
                me.comm(),
                "reduceScatter",
                COUNT * n,
                COUNT,
                i -> r + i,
                i -> n * (n - 1) / 2 + n * (r * COUNT + i),
                (c, s, v) -> c.reduceScatter(s, v, COUNT, DataType.FLOAT32, ReduceOp.SUM, me.stream()));
        check(
                me,
                me.comm(),
                "broadcast",
                COUNT,
                COUNT,
                i -> r == n - 1 ? 7 + i : -1,
                i -> 7 + i,
                (c, s, v) -> c.broadcast(s, v, COUNT, DataType.FLOAT32, n - 1, me.stream()));
        check(
                me,
                me.comm(),
                "reduce",
                COUNT,
                COUNT,
                i -> r + i,
                i -> r == 0 ? n * (n - 1) / 2 + n * i : 0,
                (c, s, v) -> c.reduce(s, v, COUNT, DataType.FLOAT32, ReduceOp.SUM, 0, me.stream()));
        check(
                me,
                me.comm(),
                "allToAll",
                COUNT * n,
                COUNT * n,
                i -> r * 100 + i,
                i -> (i / COUNT) * 100 + r * COUNT + i % COUNT,
                (c, s, v) -> c.allToAll(s, v, COUNT, DataType.FLOAT32, me.stream()));
        // the sides only the root uses: none passed off the root; a gather leaves the others' recv as it was (0)
        check(
                me,
                me.comm(),
                "gather",
                COUNT,
                COUNT * n,
                i -> r * 10 + i,
                i -> r == n - 1 ? (i / COUNT) * 10 + i % COUNT : 0,
                (c, s, v) -> c.gather(s, r == n - 1 ? v : null, COUNT, DataType.FLOAT32, n - 1, me.stream()));
        check(
                me,
                me.comm(),
                "scatter",
                COUNT * n,
                COUNT,
                i -> r == 0 ? 100 + i : -1,
                i -> 100 + r * COUNT + i,
                (c, s, v) -> c.scatter(r == 0 ? s : null, v, COUNT, DataType.FLOAT32, 0, me.stream()));
        int next = (r + 1) % n;
        int previous = (r + n - 1) % n;
        check(me, me.comm(), "send/recv", COUNT, COUNT, i -> r * 1000 + i, i -> previous * 1000 + i, (c, s, v) -> {
            c.groupStart();
            c.send(s, COUNT, DataType.FLOAT32, next, me.stream());
            c.recv(v, COUNT, DataType.FLOAT32, previous, me.stream());
            c.groupEnd();
        });
        try (DeviceBuffer memory = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
                RegisteredWindow window = me.comm().registerWindow(memory, true)) {
            say("OK window " + window.lsaDevicePointer(0, next).isPresent());
        }
        SeedJob.run(me).forEach(SimRankProcess::say);
        say("USAGE " + ((SimCommunicator) me.comm()).usage());
    }

    private static void allReduce(JoinedRank me, int count) {
        int n = me.size();
        int r = me.rank();
        check(
                me,
                me.comm(),
                count == LARGE_COUNT ? "large allReduce" : "allReduce",
                count,
                count,
                i -> r + 1 + i,
                i -> n * (n + 1) / 2 + n * i,
                (c, s, v) -> c.allReduce(s, v, count, DataType.FLOAT32, ReduceOp.SUM, me.stream()));
    }

    private static void pairMismatch(JoinedRank me) {
        try (DeviceBuffer buffer = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
            if (me.rank() == 0) {
                me.comm().send(buffer, COUNT, DataType.FLOAT32, 1, me.stream());
            } else {
                me.comm().recv(buffer, COUNT - 1, DataType.FLOAT32, 0, me.stream());
            }
            me.stream().synchronize();
        }
    }

    private static void windowMismatch(JoinedRank me) {
        try (DeviceBuffer memory = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
                RegisteredWindow window = me.comm().registerWindow(memory, me.rank() != 1)) {
            say("UNEXPECTED window " + window);
        }
    }

    /** Rank {@code waiting} never calls the allreduce: it says so, and waits to be killed. */
    private static void hang(JoinedRank me, int waiting) throws InterruptedException {
        if (me.rank() == waiting) {
            say("WAITING");
            RankProcess.waitToBeKilled();
        }
        say("CALLING");
        allReduce(me, COUNT);
    }

    /** Rank 1 waits to be killed; the others' allreduce fails, naming it. */
    private static void loseRankOne(JoinedRank me) throws InterruptedException {
        if (me.rank() == 1) {
            say("WAITING");
            RankProcess.waitToBeKilled();
        }
        say("CALLING");
        try {
            allReduce(me, COUNT);
            throw new AssertionError("rank " + me.rank() + "'s allreduce passed without rank 1");
        } catch (CollectivesException e) {
            say("LOST " + e.getMessage());
        }
    }

    private static void replace(JoinedRank me) throws InterruptedException {
        if ("1".equals(System.getenv("COLLECTIVES_REPLACEMENT"))) {
            say("REJOINED " + me.comm());
            checkedAllReduce(me.comm(), me.stream(), "reformed");
            return;
        }
        loseRankOne(me);
        try (Communicator reformed = me.comm().reform(java.time.Duration.ofSeconds(60));
                Stream stream = reformed.createStream()) {
            say("REFORMED " + reformed);
            checkedAllReduce(reformed, stream, "reformed");
        }
    }

    private static void grow(JoinedRank me) {
        if ("1".equals(System.getenv("COLLECTIVES_JOINING"))) {
            say("JOINED " + me.comm());
            checkedAllReduce(me.comm(), me.stream(), "grown");
            shrinkAway(me.comm(), me.stream());
            return;
        }
        int added = Integer.parseInt(System.getenv("GROW_BY"));
        String within = System.getenv("GROW_WITHIN");
        java.time.Duration timeout = java.time.Duration.ofMillis(within == null ? 60_000 : Long.parseLong(within));
        say("GROWING");
        Communicator grown;
        try {
            grown = me.comm().grow(added, timeout);
        } catch (CollectivesException e) {
            say("NOT GROWN " + e.getMessage());
            checkedAllReduce(me.comm(), me.stream(), "ungrown");
            return;
        }
        try (grown;
                Stream stream = grown.createStream()) {
            say("GREW " + grown);
            checkedAllReduce(grown, stream, "grown");
            shrinkAway(grown, stream);
        }
    }

    private static void shrinkThenGrow(JoinedRank me) throws InterruptedException {
        if ("1".equals(System.getenv("COLLECTIVES_JOINING"))) {
            checkedAllReduce(me.comm(), me.stream(), "grown");
            return;
        }
        loseRankOne(me);
        try (Communicator shrunk = me.comm().shrink(1)) {
            checkedAllReduce(shrunk, me.stream(), "shrunk");
            say("GROWING");
            try (Communicator grown = shrunk.grow(1, java.time.Duration.ofSeconds(60));
                    Stream stream = grown.createStream()) {
                say("GREW " + grown);
                checkedAllReduce(grown, stream, "grown");
            }
        }
    }

    /** Every rank but the highest shrinks it away, and the child allreduces on the same stream. */
    private static void shrinkAway(Communicator comm, Stream stream) {
        if (comm.rank() == comm.size() - 1) {
            return;
        }
        try (Communicator child = comm.shrink(comm.size() - 1)) {
            checkedAllReduce(child, stream, "shrunk");
        }
    }

    private static void checkedAllReduce(Communicator comm, Stream stream, String what) {
        int n = comm.size();
        try (DeviceBuffer grads = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
            grads.copyFromHost(values(COUNT, i -> comm.rank() + 1 + i));
            comm.allReduce(grads, grads, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] out = new float[COUNT];
            grads.copyToHost(out);
            float[] want = values(COUNT, i -> n * (n + 1) / 2 + n * i);
            if (!Arrays.equals(out, want)) {
                throw new AssertionError("rank " + comm.rank() + ", " + what + " allReduce: " + Arrays.toString(out)
                        + ", expected " + Arrays.toString(want));
            }
        }
        say("OK " + what + " allReduce data on " + n + " ranks");
    }

    /** Rank 0 aborts the communicator; the others' allreduce fails with its reason. */
    private static void abort(JoinedRank me) {
        if (me.rank() == 0) {
            me.comm().abort();
        }
        allReduce(me, COUNT);
    }

    /**
     * Two children, of the even and of the odd ranks, each ranked in reverse (key -rank): an allgather on each
     * holds its members' values in that order; then rank 0 splits alone while the others pass no color, and the
     * job's communicator still works.
     */
    private static void split(JoinedRank me) {
        int n = me.size();
        int r = me.rank();
        try (Communicator half = me.comm().split(r % 2, -r).orElseThrow()) {
            int members = (n - r % 2 + 1) / 2;
            IntUnaryOperator member = j -> r % 2 + 2 * (members - 1 - j);
            say("OK split child rank " + half.rank() + " of " + half.size());
            check(
                    me,
                    half,
                    "split allGather",
                    COUNT,
                    COUNT * members,
                    i -> r * 10 + i,
                    i -> member.applyAsInt(i / COUNT) * 10 + i % COUNT,
                    (c, s, v) -> c.allGather(s, v, COUNT, DataType.FLOAT32, me.stream()));
        }
        Optional<Communicator> alone = me.comm().split(r == 0 ? 0 : Communicator.NO_COLOR, 0);
        say("OK split alone " + alone.map(c -> c.rank() + " of " + c.size()).orElse("none"));
        alone.ifPresent(Communicator::close);
        allReduce(me, COUNT);
    }

    /** Rank 1 never calls split: it says so, and waits to be killed. */
    private static void splitHang(JoinedRank me) throws InterruptedException {
        if (me.rank() == 1) {
            say("WAITING");
            RankProcess.waitToBeKilled();
        }
        me.comm().split(0, me.rank()).ifPresent(Communicator::close);
    }

    /** Rank 3 dies once split: the communicators that hold it fail naming it, the even ranks' child goes on. */
    private static void splitDeath(JoinedRank me) throws InterruptedException {
        int r = me.rank();
        try (Communicator half = me.comm().split(r % 2, r).orElseThrow()) {
            if (r == 3) {
                say("WAITING");
                RankProcess.waitToBeKilled();
            }
            say("CALLING");
            Communicator holdingRankThree = r == 1 ? half : me.comm();
            try (DeviceBuffer grads = holdingRankThree.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
                holdingRankThree.allReduce(grads, grads, COUNT, DataType.FLOAT32, ReduceOp.SUM, me.stream());
                me.stream().synchronize();
                throw new AssertionError("rank " + r + "'s allreduce passed without rank 3");
            } catch (CollectivesException e) {
                say("LOST " + e.getMessage());
            }
            if (r % 2 == 0) {
                check(
                        me,
                        half,
                        "even allReduce",
                        COUNT,
                        COUNT,
                        i -> r * 10 + i,
                        i -> 20 + 2 * i,
                        (c, s, v) -> c.allReduce(s, v, COUNT, DataType.FLOAT32, ReduceOp.SUM, me.stream()));
            }
        }
    }

    private static void settings(JoinedRank me) {
        SimCommunicator comm = (SimCommunicator) me.comm();
        say("CAPABILITIES " + comm.capabilities());
        say("TOPOLOGY " + comm.topology());
        say("TIMEOUT " + comm.config().timeout().toMillis() + " ms");
        try (DeviceBuffer memory = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 16)) {
            say("USAGE " + comm.usage());
        }
        say("USAGE " + comm.usage());
    }

    private static void bench(JoinedRank me) {
        Communicator comm = me.comm();
        if (me.rank() == 0) {
            say(String.format("%10s %12s %10s", "bytes", "time (ms)", "algbw MB/s"));
        }
        for (long bytes = 4096; bytes <= 16 << 20; bytes *= 16) {
            long count = bytes / 4;
            try (DeviceBuffer s = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count);
                    DeviceBuffer v = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count)) {
                long best = Long.MAX_VALUE;
                for (int run = 0; run < 5; run++) {
                    long start = System.nanoTime();
                    comm.allReduce(s, v, count, DataType.FLOAT32, ReduceOp.SUM, me.stream());
                    me.stream().synchronize();
                    best = Math.min(best, System.nanoTime() - start);
                }
                if (me.rank() == 0) {
                    say(String.format("%10d %12.2f %10.1f", bytes, best / 1e6, bytes * 1e3 / best));
                }
            }
        }
    }

    /** Runs {@code op} from a send buffer of {@code sendCount} values to a recv buffer of {@code recvCount}. */
    private static void check(
            JoinedRank me,
            Communicator comm,
            String name,
            int sendCount,
            int recvCount,
            IntToDoubleFunction send,
            IntToDoubleFunction expected,
            Op op) {
        Stream stream = me.stream();
        try (DeviceBuffer s = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, sendCount);
                DeviceBuffer v = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, recvCount)) {
            s.copyFromHost(values(sendCount, send));
            op.run(comm, s, v);
            stream.synchronize();
            float[] out = new float[recvCount];
            v.copyToHost(out);
            float[] want = values(recvCount, expected);
            if (!Arrays.equals(out, want)) {
                throw new AssertionError("rank " + me.rank() + ", " + name + ": " + Arrays.toString(out) + ", expected "
                        + Arrays.toString(want));
            }
        }
        say("OK " + name + " data");
    }

    private static float[] values(int count, IntToDoubleFunction value) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = (float) value.applyAsDouble(i);
        }
        return values;
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    @FunctionalInterface
    private interface Op {
        void run(Communicator comm, DeviceBuffer send, DeviceBuffer recv);
    }
}
