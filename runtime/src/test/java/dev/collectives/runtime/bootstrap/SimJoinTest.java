package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimCommunicator;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Availability;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;
import dev.collectives.runtime.internal.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Code written for a multi-process job, run with the sim's ranks as threads of this JVM. */
class SimJoinTest {
    private static final Duration GENEROUS = Duration.ofSeconds(20);

    @TempDir
    Path shared;

    /** What each process of a job would run: join, bind-time fingerprint check, an allreduce. */
    static float[] jobBody(Bootstrap bootstrap) {
        try (JoinedRank me = Backends.get("sim").join(bootstrap)) {
            assertEquals(bootstrap.rank(), me.rank());
            assertEquals(bootstrap.size(), me.size());
            assertEquals(bootstrap.rank(), me.comm().rank());
            assertEquals(bootstrap.device(), me.device());
            Fingerprint.builder("job")
                    .add("op 0", "allReduce 4 FLOAT32 SUM")
                    .build()
                    .exchange(me.comm(), me.stream());
            try (DeviceBuffer send = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4);
                    DeviceBuffer recv = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4)) {
                float r = me.rank();
                send.copyFromHost(new float[] {r, 1, 2 * r, -r});
                me.comm().allReduce(send, recv, 4, DataType.FLOAT32, ReduceOp.SUM, me.stream());
                me.stream().synchronize();
                float[] sum = new float[4];
                recv.copyToHost(sum);
                return sum;
            }
        }
    }

    @Test
    void threadsJoinASimJobThroughTheTcpRendezvousAndAllReduce() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<float[]>> outcomes =
                RankThreadsForTests.run(4, rank -> () -> jobBody(bootstrap(endpoint, rank, 4, GENEROUS)));
        outcomes.forEach(o -> assertArrayEquals(new float[] {6, 4, 12, -6}, o.get()));
    }

    @Test
    void aJoinedSimJobTakesItsTimeoutFromTheBootstrap() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        Duration timeout = Duration.ofMillis(1500);
        CountDownLatch failed = new CountDownLatch(1);
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (JoinedRank me = Backends.get("sim").join(bootstrap(endpoint, rank, 2, timeout));
                    DeviceBuffer buffer = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4)) {
                if (rank == 0) { // rank 1 never calls the allreduce
                    try {
                        me.comm().allReduce(buffer, buffer, 4, DataType.FLOAT32, ReduceOp.SUM, me.stream());
                        me.stream().synchronize();
                    } finally {
                        failed.countDown();
                    }
                } else {
                    RankThreadsForTests.await(failed);
                }
                return null;
            }
        });
        assertTrue(outcomes.get(0).failure() instanceof CollectivesException, String.valueOf(outcomes.get(0)));
        // the bootstrap's timeout, not the sim's own default of a minute
        assertTrue(
                outcomes.get(0).message().contains("did not arrive within 1500 ms"),
                outcomes.get(0).message());
    }

    @Test
    void joinedThreadsTakeTheSimSettingsFromTheBootstrapAndCountTheirUsage() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<String>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            Bootstrap bootstrap = Bootstrap.builder()
                    .rank(rank)
                    .size(2)
                    .rendezvous(endpoint)
                    .timeout(GENEROUS)
                    .jobToken(RankThreadsForTests.TOKEN)
                    .option("sim.mtlinkSharp", "true")
                    .option("sim.timeout", "3s")
                    .option("sim.ranksPerNode", "1")
                    .build();
            try (JoinedRank me = Backends.get("sim").join(bootstrap)) {
                SimCommunicator comm = (SimCommunicator) me.comm();
                try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4)) {
                    return comm.capabilities().mtlinkSharp() + " "
                            + comm.config().timeout() + " " + comm.topology() + " "
                            + comm.usage().allocations();
                }
            }
        });
        outcomes.forEach(o -> assertEquals("true PT3S 2 ranks, 1 per node 1", o.get()));
    }

    @Test
    void joinedThreadsWithDifferentSimSettingsFailNamingEachRanksValue() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(
                2,
                rank -> () -> Backends.get("sim")
                        .join(Bootstrap.builder()
                                .rank(rank)
                                .size(2)
                                .rendezvous(endpoint)
                                .timeout(GENEROUS)
                                .jobToken(RankThreadsForTests.TOKEN)
                                .option("sim.registration", rank == 0 ? "true" : "no")
                                .build()));
        outcomes.forEach(o -> assertTrue(
                o.message().contains("disagree on the sim settings: rank 0: ")
                        && o.message().contains("registration=true")
                        && o.message().contains("registration=false"),
                o.message()));
    }

    @Test
    void aSimSettingThatDoesNotReadFailsEveryRankAtOnce() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(
                2,
                rank -> () -> Backends.get("sim")
                        .join(Bootstrap.builder()
                                .rank(rank)
                                .size(2)
                                .rendezvous(endpoint)
                                .timeout(GENEROUS)
                                .jobToken(RankThreadsForTests.TOKEN)
                                .option("sim.mtlinkSharp", rank == 0 ? "maybe" : "true")
                                .build()));
        for (Outcome<Object> outcome : outcomes) {
            assertTrue(
                    outcome.message()
                            .contains("the sim setting mtlinkSharp (COLLECTIVES_SIM_MTLINK_SHARP or"
                                    + " -Dcollectives.sim.mtlinkSharp) is 'maybe': not true or false"),
                    outcome.message());
        }
    }

    @Test
    void threadsJoinASimJobFromLauncherVariablesThroughAFileRendezvous() {
        String endpoint = "file:" + shared.resolve("job");
        List<Outcome<float[]>> outcomes = RankThreadsForTests.run(
                3,
                rank -> () -> jobBody(Bootstrap.fromEnvironment(Map.of(
                        "SLURM_PROCID",
                        String.valueOf(rank),
                        "SLURM_NTASKS",
                        "3",
                        "SLURM_LOCALID",
                        String.valueOf(rank),
                        "COLLECTIVES_RENDEZVOUS",
                        endpoint,
                        "COLLECTIVES_JOB_TOKEN",
                        RankThreadsForTests.TOKEN))));
        outcomes.forEach(o -> assertArrayEquals(new float[] {3, 3, 6, -3}, o.get()));
    }

    @Test
    void theSeedExamplesRunOnJoinedSimRanks() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<List<String>>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (JoinedRank me = Backends.get("sim").join(bootstrap(endpoint, rank, 2, GENEROUS))) {
                return SeedJob.run(me);
            }
        });
        outcomes.forEach(o -> assertEquals(
                List.of(
                        "seed 1 graph registration: ok",
                        "seed 2 local registration: ok",
                        "seed 3 registered block with views: ok"),
                o.get()));
    }

    @Test
    void aDifferentPipelineOnOneJoinedRankFailsEveryRankWithR14() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<Void>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (JoinedRank me = Backends.get("sim").join(bootstrap(endpoint, rank, 2, GENEROUS))) {
                Fingerprint.builder("job")
                        .add("op 0", rank == 0 ? "allReduce 4" : "allReduce 8")
                        .build()
                        .exchange(me.comm(), me.stream());
                return null;
            }
        });
        for (Outcome<Void> outcome : outcomes) {
            assertTrue(
                    outcome.failure() instanceof CollectivesException e && e.rule() == Rule.R14_SHAPE,
                    String.valueOf(outcome.failure()));
            assertTrue(
                    outcome.message().contains("'op 0' differs; rank 0: allReduce 4; rank 1: allReduce 8"),
                    outcome.message());
        }
    }

    @Test
    void twoRanksHereAndOneInAnotherProcessFormOneJobAndAllReduce() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        Map<String, String> variables = new HashMap<>(Map.of(
                "COLLECTIVES_RANK",
                "2",
                "COLLECTIVES_WORLD_SIZE",
                "3",
                "COLLECTIVES_RENDEZVOUS",
                endpoint,
                "COLLECTIVES_JOB_TOKEN",
                RankThreadsForTests.TOKEN,
                "COLLECTIVES_BOOTSTRAP_TIMEOUT",
                "20s"));
        try (ChildRank other = ChildRank.start("rank 2", variables, "sim-join")) {
            other.await("STARTED", GENEROUS);
            List<Outcome<float[]>> here =
                    RankThreadsForTests.run(2, rank -> () -> jobBody(bootstrap(endpoint, rank, 3, GENEROUS)));
            here.forEach(o -> assertArrayEquals(new float[] {3, 3, 6, -3}, o.get()));
            assertEquals("SUM [3.0, 3.0, 6.0, -3.0]", other.await("SUM", GENEROUS));
            other.awaitExit(0);
        }
    }

    @Test
    void aJobMixingBackendsFailsBeforeFormingACommunicator() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            if (rank == 0) {
                return Backends.get("sim").join(bootstrap(endpoint, 0, 2, GENEROUS));
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, 1, 2, GENEROUS).rendezvous()) {
                rendezvous.agree("backend", "nccl");
                return null;
            }
        });
        outcomes.forEach(
                o -> assertTrue(o.message().contains("disagree on backend: rank 0: sim; rank 1: nccl"), o.message()));
    }

    @Test
    void aBackendWithoutJoinSaysSo() {
        Backend noJoin = new Backend() {
            @Override
            public String name() {
                return "plain";
            }

            @Override
            public Availability availability() {
                return Availability.available();
            }

            @Override
            public LocalCluster local(int ranks) {
                throw new UnsupportedOperationException();
            }
        };
        CollectivesException e =
                assertThrows(CollectivesException.class, () -> noJoin.join(Bootstrap.fromEnvironment(Map.of())));
        assertEquals(
                "rank 0: backend 'plain' cannot join multi-process jobs; use local(n) for ranks of one process",
                e.getMessage());
    }
}
