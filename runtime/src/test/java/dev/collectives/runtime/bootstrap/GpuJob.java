package dev.collectives.runtime.bootstrap;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables of one process of a job on this host, as a launcher gives them, and a two-process nccl job of
 * such processes: one GPU per rank. With {@code -Dcollectives.test.sharedGpu=true} both ranks run on device 0 of a
 * host with one GPU, each with its own {@code NCCL_HOSTID}, so that NCCL takes them for two hosts and connects them
 * through its socket transport (it refuses two ranks of one communicator on one device of one host): the failure
 * paths are the same, the bandwidth is not.
 */
public final class GpuJob {
    public static final boolean SHARED_GPU = Boolean.getBoolean("collectives.test.sharedGpu");
    /** What a test's process inherits from this one and passes on: the devices a container or a user left visible. */
    private static final List<String> INHERITED = List.of("CUDA_VISIBLE_DEVICES", "MUSA_VISIBLE_DEVICES");

    private GpuJob() {}

    static ChildRank start(
            int rank, String backend, String endpoint, Class<?> main, List<String> jvmOptions, String... args) {
        return ChildRank.start(
                "rank " + rank, main, jvmOptions, variables(rank, 2, backend, endpoint, SHARED_GPU), args);
    }

    /**
     * Rank {@code rank} of {@code size} on {@code backend}, meeting at {@code endpoint}; with {@code sharedDevice},
     * on device 0 with a host id of its own. The libraries' variables are set under both prefixes: the mccl backend's
     * test fixture forwards to NCCL.
     */
    static Map<String, String> variables(int rank, int size, String backend, String endpoint, boolean sharedDevice) {
        Map<String, String> variables = new HashMap<>(Map.of(
                "COLLECTIVES_BACKEND",
                backend,
                "COLLECTIVES_RANK",
                String.valueOf(rank),
                "COLLECTIVES_WORLD_SIZE",
                String.valueOf(size),
                "COLLECTIVES_LOCAL_RANK",
                String.valueOf(rank),
                "COLLECTIVES_RENDEZVOUS",
                endpoint,
                "COLLECTIVES_JOB_TOKEN",
                RankThreadsForTests.TOKEN,
                "COLLECTIVES_BOOTSTRAP_TIMEOUT",
                "60s"));
        INHERITED.forEach(name -> {
            if (System.getenv(name) != null) {
                variables.put(name, System.getenv(name));
            }
        });
        for (String prefix : List.of("NCCL", "MCCL")) {
            variables.put(prefix + "_NVLS_ENABLE", "0");
            if (sharedDevice) {
                variables.putAll(Map.of(
                        prefix + "_HOSTID",
                        "collectives-test-host-" + rank,
                        prefix + "_SOCKET_IFNAME",
                        "lo",
                        prefix + "_IB_DISABLE",
                        "1"));
            }
        }
        if (sharedDevice) {
            variables.put("COLLECTIVES_DEVICE", "0");
        }
        return variables;
    }
}
