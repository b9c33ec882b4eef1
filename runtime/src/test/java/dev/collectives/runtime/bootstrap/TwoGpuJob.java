package dev.collectives.runtime.bootstrap;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables of one process of a two-process nccl job on this host: one GPU per rank. With
 * {@code -Dcollectives.test.sharedGpu=true} both ranks run on device 0 of a host with one GPU, each with its own
 * {@code NCCL_HOSTID}, so that NCCL takes them for two hosts and connects them through its socket transport (it
 * refuses two ranks of one communicator on one device of one host): the failure paths are the same, the
 * bandwidth is not.
 */
final class TwoGpuJob {
    static final boolean SHARED_GPU = Boolean.getBoolean("collectives.test.sharedGpu");

    private TwoGpuJob() {
    }

    static ChildRank start(int rank, String backend, String endpoint, Class<?> main, List<String> jvmOptions,
                           String... args) {
        Map<String, String> variables = new HashMap<>(Map.of("COLLECTIVES_BACKEND", backend,
                "COLLECTIVES_RANK", String.valueOf(rank), "COLLECTIVES_WORLD_SIZE", "2", "COLLECTIVES_LOCAL_RANK",
                String.valueOf(rank), "COLLECTIVES_RENDEZVOUS", endpoint, "COLLECTIVES_JOB_TOKEN",
                RankThreadsForTests.TOKEN, "COLLECTIVES_BOOTSTRAP_TIMEOUT", "60s", "NCCL_NVLS_ENABLE", "0"));
        if (SHARED_GPU) {
            variables.putAll(Map.of("COLLECTIVES_DEVICE", "0", "NCCL_HOSTID", "collectives-test-host-" + rank,
                    "NCCL_SOCKET_IFNAME", "lo", "NCCL_IB_DISABLE", "1"));
        }
        return ChildRank.start("rank " + rank, main, jvmOptions, variables, args);
    }
}
