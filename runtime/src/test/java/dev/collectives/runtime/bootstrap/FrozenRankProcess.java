package dev.collectives.runtime.bootstrap;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import java.util.Arrays;

/**
 * One process of a sim job whose ranks step allreduces until one of them stops answering (the test stops its process
 * with {@code kill -STOP}, or cuts its network): the survivors print what their failed step said ({@code LOST}), then
 * recover as the first argument says and run {@value #STEPS} checked steps on what they recovered ({@code STEPS}):
 * {@code shrink} the silent rank away, or {@code replace} it (they reform the job, and a process started with
 * {@code COLLECTIVES_REPLACEMENT=1} joins in its place). The silent rank, once it runs again, prints why its step
 * failed ({@code FAILED}). The test names the rank it stops in {@code FROZEN_RANK}.
 */
public final class FrozenRankProcess {
    static final int STEPS = 50;
    private static final int COUNT = 1024;

    private FrozenRankProcess() {}

    public static void main(String[] args) {
        boolean replacement = "1".equals(System.getenv("COLLECTIVES_REPLACEMENT"));
        try (JoinedRank me = Backends.get("sim").join(Bootstrap.fromEnvironment())) {
            say("JOINED " + me.comm());
            if (replacement) {
                steps(me.comm(), me.stream());
                return;
            }
            try {
                for (int step = 0; ; step++) {
                    check(me.comm(), me.stream(), step);
                    if (step == 0) {
                        say("STEPPING");
                    }
                }
            } catch (CollectivesException e) {
                if (me.rank() == frozenRank()) {
                    throw e; // it ran again after the others went on without it
                }
                say("LOST " + e.getMessage());
            }
            recover(me, args[0]);
        } catch (CollectivesException | AssertionError e) {
            say("FAILED " + e.getMessage());
            System.exit(3);
        }
    }

    private static void recover(JoinedRank me, String how) {
        if (how.equals("shrink")) {
            try (Communicator survivors = me.comm().shrink(frozenRank())) {
                say("SHRUNK " + survivors);
                steps(survivors, me.stream());
            }
        } else {
            try (Communicator reformed = me.comm().reform(Duration.ofSeconds(60));
                    Stream stream = reformed.createStream()) {
                say("REFORMED " + reformed);
                steps(reformed, stream);
            }
        }
    }

    /** The rank the test stops ({@code FROZEN_RANK}). */
    private static int frozenRank() {
        return Integer.parseInt(System.getenv("FROZEN_RANK"));
    }

    private static void steps(Communicator comm, Stream stream) {
        for (int step = 0; step < STEPS; step++) {
            check(comm, stream, step);
        }
        say("STEPS " + STEPS + " checked on " + comm.size() + " ranks");
    }

    /** One allreduce of each rank's {@code rank + step + i}, checked against the sum over the ranks. */
    private static void check(Communicator comm, Stream stream, int step) {
        int n = comm.size();
        try (DeviceBuffer data = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
            float[] mine = new float[COUNT];
            float[] want = new float[COUNT];
            for (int i = 0; i < COUNT; i++) {
                mine[i] = comm.rank() + step + i;
                want[i] = n * (n - 1) / 2f + n * (float) (step + i);
            }
            data.copyFromHost(mine);
            comm.allReduce(data, data, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
            stream.synchronize();
            float[] out = new float[COUNT];
            data.copyToHost(out);
            if (!Arrays.equals(out, want)) {
                throw new AssertionError(
                        "rank " + comm.rank() + ", step " + step + ": " + out[0] + ", expected " + want[0]);
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
