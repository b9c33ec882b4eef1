package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;

/**
 * The data and the check shared by the guide's examples 1 and 2, which differ only in how their buffers are registered:
 * allreduce sendbuff[0, 1024) into recvbuff[0, 1024), and sendbuff[1024, 2048) into recvbuff[2048, 3072).
 */
final class SeedAllReduces {
    /** The guide allocates 1 << 25 floats per buffer; 1 << 20 (4 MiB, two granules) keeps 8 simulated ranks light. */
    static final long BUFFER_COUNT = 1 << 20;

    static final long COUNT = 1024;
    static final long SECOND_SEND_OFFSET = 1024;
    static final long SECOND_RECV_OFFSET = 2048;
    /** Steps per run: the second shows that a registration (or a graph) made once serves again on new data. */
    static final int ITERATIONS = 2;
    /** recvbuff[0, 4096): both results, the gap between them, and the elements after the second. */
    private static final int CHECKED = 4096;

    private SeedAllReduces() {}

    /** Fills, steps, reads back and compares, {@link #ITERATIONS} times. */
    static Check run(RankContext rank, DeviceBuffer sendbuff, DeviceBuffer recvbuff, Runnable step) {
        return Check.eachIteration(ITERATIONS, iteration -> {
            sendbuff.copyFromHost(HostData.values(iteration, rank.rank(), 0, (int) (SECOND_SEND_OFFSET + COUNT)));
            recvbuff.copyFromHost(HostData.untouched(CHECKED));
            step.run();
            rank.stream().synchronize();
            return HostData.compare(
                    rank.rank(), "recvbuff", expected(iteration, rank.size()), HostData.read(recvbuff, CHECKED));
        });
    }

    private static float[] expected(int iteration, int size) {
        float[] expected = HostData.untouched(CHECKED);
        for (int j = 0; j < COUNT; j++) {
            expected[j] = HostData.sum(iteration, size, j);
            expected[(int) SECOND_RECV_OFFSET + j] = HostData.sum(iteration, size, SECOND_SEND_OFFSET + j);
        }
        return expected;
    }
}
