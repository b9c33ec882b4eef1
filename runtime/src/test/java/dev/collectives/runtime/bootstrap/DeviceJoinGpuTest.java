package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two processes, one GPU each, joined through the TCP rendezvous on loopback, running the seed's examples through
 * NCCL ({@code COLLECTIVES_BACKEND=nccl}; the libraries as the device backends find them). Needs 2 CUDA GPUs, or
 * one with {@code -Dcollectives.test.sharedGpu=true} ({@link GpuJob}).
 */
@Tag("gpu")
class DeviceJoinGpuTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private final List<ChildRank> children = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        children.forEach(ChildRank::close);
    }

    @Test
    void twoProcessesOneGpuEachRunTheSeedExamplesThroughNccl() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        for (int rank = 1; rank >= 0; rank--) {
            children.add(0, start(rank, "nccl", endpoint));
        }
        for (int rank = 0; rank < 2; rank++) {
            ChildRank child = children.get(rank);
            String joined = child.await("JOINED", LIMIT);
            assertTrue(joined.contains("nccl rank " + rank + "/2 on device " + (GpuJob.SHARED_GPU ? 0 : rank)), joined);
            assertEquals("seed 1 graph registration: ok", child.await("seed 1", LIMIT));
            assertEquals("seed 2 local registration: ok", child.await("seed 2", LIMIT));
            assertEquals("seed 3 registered block with views: ok", child.await("seed 3", LIMIT));
            child.await("DONE", LIMIT);
            child.awaitExit(0);
        }
    }

    @Test
    void aProcessOnAnotherBackendIsNamedBeforeAnyCommunicatorForms() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        children.add(start(1, "sim", endpoint));
        children.add(start(0, "nccl", endpoint));
        for (ChildRank child : children) {
            String message = child.failure();
            assertTrue(
                    message.contains("disagree on backend: rank 0: nccl ") && message.contains("rank 1: sim"), message);
        }
    }

    private static ChildRank start(int rank, String backend, String endpoint) {
        return GpuJob.start(rank, backend, endpoint, SeedJobProcess.class, List.of());
    }
}
