package dev.collectives.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.bootstrap.Rendezvous;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class BootstrapSettingsTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";

    @Test
    void backendOptionsComeFromTheBuilderThenAPropertyThenAVariable() {
        Properties properties = new Properties();
        properties.setProperty("collectives.sim.timeout", "750ms");
        Map<String, String> environment =
                Map.of("COLLECTIVES_SIM_TIMEOUT", "9s", "COLLECTIVES_SIM_MTLINK_SHARP", "true");
        Bootstrap fromSettings = Bootstrap.builder()
                .environment(environment)
                .properties(properties)
                .build();
        assertEquals(Optional.of(Duration.ofMillis(750)), fromSettings.durationOption("sim.timeout"));
        assertEquals(Optional.of("true"), fromSettings.option("sim.mtlinkSharp"));
        assertEquals(Optional.empty(), fromSettings.option("sim.ibSharp"));
        Bootstrap fromBuilder = Bootstrap.builder()
                .environment(environment)
                .properties(properties)
                .option("sim.timeout", "2s")
                .build();
        assertEquals(Optional.of(Duration.ofSeconds(2)), fromBuilder.durationOption("sim.timeout"));
        assertEquals("COLLECTIVES_SIM_MTLINK_SHARP", Bootstrap.optionVariable("sim.mtlinkSharp"));
        CollectivesException e = assertThrows(
                CollectivesException.class,
                () -> Bootstrap.builder()
                        .environment(Map.of("COLLECTIVES_SIM_TIMEOUT", "soon"))
                        .build()
                        .durationOption("sim.timeout"));
        assertTrue(e.getMessage().contains("COLLECTIVES_SIM_TIMEOUT is 'soon', not a duration"), e.getMessage());
    }

    @Test
    void noLauncherIsAJobOfOneProcessThatNeedsNoRendezvous() {
        Bootstrap bootstrap = Bootstrap.fromEnvironment(Map.of());
        assertEquals(0, bootstrap.rank());
        assertEquals(1, bootstrap.size());
        assertEquals(0, bootstrap.device());
        try (Rendezvous alone = bootstrap.rendezvous()) {
            assertArrayEquals(new byte[] {7}, alone.broadcast(new byte[] {7}));
            assertArrayEquals(new byte[] {9}, alone.allGather(new byte[] {9})[0]);
            alone.agree("backend", "sim");
        }
    }

    @Test
    void openMpiVariablesGiveRankSizeLocalRankAndDevice() {
        Bootstrap b = Bootstrap.fromEnvironment(Map.of(
                "OMPI_COMM_WORLD_RANK",
                "5",
                "OMPI_COMM_WORLD_SIZE",
                "8",
                "OMPI_COMM_WORLD_LOCAL_RANK",
                "1",
                "OMPI_COMM_WORLD_LOCAL_SIZE",
                "4"));
        assertEquals(5, b.rank());
        assertEquals(8, b.size());
        assertEquals(1, b.localRank());
        assertEquals(OptionalInt.of(4), b.localSize());
        assertEquals(1, b.device());
        assertTrue(b.describe().contains("OMPI_COMM_WORLD_RANK"), b.describe());
    }

    @Test
    void pmiVariablesWithHydraLocalRank() {
        Bootstrap b = Bootstrap.fromEnvironment(Map.of("PMI_RANK", "3", "PMI_SIZE", "4", "MPI_LOCALRANKID", "3"));
        assertEquals(3, b.rank());
        assertEquals(4, b.size());
        assertEquals(3, b.device());
    }

    @Test
    void slurmVariables() {
        Bootstrap b = Bootstrap.fromEnvironment(
                Map.of("SLURM_PROCID", "6", "SLURM_NTASKS", "16", "SLURM_LOCALID", "2", "SLURM_NTASKS_PER_NODE", "8"));
        assertEquals(6, b.rank());
        assertEquals(16, b.size());
        assertEquals(2, b.localRank());
        assertEquals(OptionalInt.of(8), b.localSize());
    }

    @Test
    void anUnreadableLocalSizeFromALauncherIsOnlyAHintAndIgnored() {
        Bootstrap b = Bootstrap.fromEnvironment(
                Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "6", "SLURM_NTASKS_PER_NODE", "2(x3)"));
        assertEquals(OptionalInt.empty(), b.localSize());
    }

    @Test
    void torchrunVariablesIncludingTheMasterAddressAsRendezvous() {
        Bootstrap b = Bootstrap.fromEnvironment(Map.of(
                "RANK", "1", "WORLD_SIZE", "2", "LOCAL_RANK", "1", "MASTER_ADDR", "node17", "MASTER_PORT", "29500"));
        assertEquals(1, b.rank());
        assertEquals(RendezvousEndpoint.tcp("node17", 29500), b.endpoint().orElseThrow());
    }

    @Test
    void underTorchrunTheRendezvousTakesThePortAfterTheAgentsStore() {
        Bootstrap b = Bootstrap.fromEnvironment(Map.of(
                "RANK",
                "0",
                "WORLD_SIZE",
                "2",
                "MASTER_ADDR",
                "node17",
                "MASTER_PORT",
                "29500",
                "TORCHELASTIC_RUN_ID",
                "job-7"));
        assertEquals(RendezvousEndpoint.tcp("node17", 29501), b.endpoint().orElseThrow());
        assertTrue(b.describe().contains("MASTER_PORT + 1"), b.describe());
    }

    @Test
    void theSettingsSayWhenARendezvousServerOfItsOwnServesTheJob() {
        Map<String, String> env = Map.of(
                "COLLECTIVES_RANK", "0", "COLLECTIVES_WORLD_SIZE", "3", "COLLECTIVES_RENDEZVOUS", "tcp://node17:29500");
        String servedByRankZero = Bootstrap.fromEnvironment(env).describe();
        assertTrue(servedByRankZero.contains("(COLLECTIVES_RENDEZVOUS), timeout"), servedByRankZero);
        Map<String, String> standalone = new HashMap<>(env);
        standalone.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        String described = Bootstrap.fromEnvironment(standalone).describe();
        assertTrue(
                described.contains("rendezvous tcp://node17:29500 (COLLECTIVES_RENDEZVOUS) served by a rendezvous"
                        + " server of its own, timeout"),
                described);
    }

    @Test
    void mpirunInsideASlurmAllocationUsesOpenMpiNotTheInheritedSlurmStep() {
        Bootstrap b = Bootstrap.fromEnvironment(Map.of(
                "SLURM_PROCID", "0", "SLURM_NTASKS", "1", "OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4"));
        assertEquals(3, b.rank());
        assertEquals(4, b.size());
    }

    @Test
    void torchrunUnderSrunUsesTorchrunsRanks() {
        Bootstrap b = Bootstrap.fromEnvironment(
                Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1"));
        assertEquals(5, b.rank());
        assertEquals(8, b.size());
    }

    @Test
    void explicitSettingsTakePrecedence() {
        Map<String, String> env = Map.of(
                "OMPI_COMM_WORLD_RANK",
                "3",
                "OMPI_COMM_WORLD_SIZE",
                "4",
                "COLLECTIVES_RANK",
                "2",
                "COLLECTIVES_DEVICE",
                "7",
                "COLLECTIVES_RENDEZVOUS",
                "file:/shared/job",
                "COLLECTIVES_BOOTSTRAP_TIMEOUT",
                "500ms");
        Bootstrap fromVariables = Bootstrap.fromEnvironment(env);
        assertEquals(2, fromVariables.rank());
        assertEquals(4, fromVariables.size());
        assertEquals(7, fromVariables.device());
        assertEquals(
                RendezvousEndpoint.file(Path.of("/shared/job")),
                fromVariables.endpoint().orElseThrow());
        assertEquals(Duration.ofMillis(500), fromVariables.timeout());

        Properties properties = new Properties();
        properties.setProperty("collectives.rank", "1");
        properties.setProperty("collectives.bootstrapTimeout", "3");
        Bootstrap fromProperties =
                Bootstrap.builder().environment(env).properties(properties).build();
        assertEquals(1, fromProperties.rank());
        assertEquals(Duration.ofSeconds(3), fromProperties.timeout());
        assertTrue(fromProperties.describe().contains("system property collectives.bootstrapTimeout"));

        Bootstrap fromBuilder = Bootstrap.builder()
                .environment(env)
                .properties(properties)
                .rank(0)
                .device(0)
                .rendezvous("tcp://127.0.0.1:4000")
                .build();
        assertEquals(0, fromBuilder.rank());
        assertEquals(0, fromBuilder.device());
        assertEquals(
                "tcp://127.0.0.1:4000", fromBuilder.endpoint().orElseThrow().toString());
    }

    @Test
    void oneVisibleDeviceMeansDeviceZeroWhateverTheLocalRank() {
        Bootstrap b = Bootstrap.fromEnvironment(
                Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "4", "SLURM_LOCALID", "3", "CUDA_VISIBLE_DEVICES", "3"));
        assertEquals(3, b.localRank());
        assertEquals(0, b.device());
    }

    @Test
    void aLauncherRankWithoutItsSizeIsAnError() {
        BootstrapException e =
                assertThrows(BootstrapException.class, () -> Bootstrap.fromEnvironment(Map.of("PMI_RANK", "1")));
        assertEquals(Result.INVALID_USAGE, e.result());
        assertTrue(e.getMessage().contains("PMI_RANK is set but PMI_SIZE is not"), e.getMessage());
    }

    @Test
    void rankOutsideTheWorldIsAnError() {
        BootstrapException e = assertThrows(
                BootstrapException.class,
                () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_RANK", "4", "COLLECTIVES_WORLD_SIZE", "4")));
        assertTrue(e.getMessage().contains("rank 4 (COLLECTIVES_RANK) is not in 0..3"), e.getMessage());
    }

    @Test
    void aSizeWithoutARankIsAnError() {
        BootstrapException e = assertThrows(
                BootstrapException.class, () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_WORLD_SIZE", "4")));
        assertTrue(e.getMessage().contains("no rank is set"), e.getMessage());
    }

    @Test
    void malformedValuesNameTheirVariable() {
        assertTrue(assertThrows(
                        BootstrapException.class, () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_RANK", "one")))
                .getMessage()
                .contains("COLLECTIVES_RANK is 'one', not a whole number"));
        assertTrue(assertThrows(
                        BootstrapException.class,
                        () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_BOOTSTRAP_TIMEOUT", "soon")))
                .getMessage()
                .contains("not a duration"));
        assertTrue(assertThrows(
                        BootstrapException.class,
                        () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_RENDEZVOUS", "http://x")))
                .getMessage()
                .contains("expected tcp://host:port"));
    }

    @Test
    void aJobOfSeveralRanksNeedsARendezvousAndAJobToken() {
        Bootstrap noEndpoint =
                Bootstrap.builder().rank(1).size(2).jobToken(TOKEN).build();
        assertTrue(assertThrows(BootstrapException.class, noEndpoint::rendezvous)
                .getMessage()
                .contains("no rendezvous for a job of 2 ranks"));
        Bootstrap noToken = Bootstrap.builder()
                .rank(1)
                .size(2)
                .rendezvous("tcp://127.0.0.1:1")
                .build();
        assertTrue(assertThrows(BootstrapException.class, noToken::rendezvous)
                .getMessage()
                .contains("no job token: set COLLECTIVES_JOB_TOKEN"));
        Bootstrap shortToken = Bootstrap.builder()
                .rank(1)
                .size(2)
                .rendezvous("tcp://127.0.0.1:1")
                .jobToken("secret")
                .build();
        String message =
                assertThrows(BootstrapException.class, shortToken::rendezvous).getMessage();
        assertTrue(message.contains("has 6 characters; it needs at least 16"), message);
        assertFalse(message.contains("secret"), message);
    }

    @Test
    void theHeartbeatTimeoutComesFromItsVariableOrTheBuilderAndDescribeShowsIt() {
        Bootstrap byDefault = Bootstrap.fromEnvironment(Map.of());
        assertEquals(Duration.ofMillis(1500), byDefault.heartbeatTimeout());
        assertTrue(byDefault.describe().contains(", heartbeat timeout 1.5 s (default), "), byDefault.describe());
        Bootstrap fromVariable = Bootstrap.fromEnvironment(Map.of("COLLECTIVES_HEARTBEAT_TIMEOUT", "2500ms"));
        assertEquals(Duration.ofMillis(2500), fromVariable.heartbeatTimeout());
        assertTrue(
                fromVariable.describe().contains("heartbeat timeout 2.5 s (COLLECTIVES_HEARTBEAT_TIMEOUT)"),
                fromVariable.describe());
        Bootstrap fromBuilder = Bootstrap.builder()
                .environment(Map.of("COLLECTIVES_HEARTBEAT_TIMEOUT", "9"))
                .option("heartbeatTimeout", "3s")
                .build();
        assertEquals(Duration.ofSeconds(3), fromBuilder.heartbeatTimeout());
        String zero = assertThrows(
                        BootstrapException.class,
                        () -> Bootstrap.fromEnvironment(Map.of("COLLECTIVES_HEARTBEAT_TIMEOUT", "0")))
                .getMessage();
        assertTrue(zero.contains("the heartbeat timeout PT0S (COLLECTIVES_HEARTBEAT_TIMEOUT) is not positive"), zero);
    }

    @Test
    void describeNeverShowsTheJobToken() {
        Bootstrap b = Bootstrap.fromEnvironment(Map.of("COLLECTIVES_JOB_TOKEN", TOKEN));
        assertTrue(b.describe().contains("job token set"), b.describe());
        assertFalse(b.toString().contains(TOKEN));
    }

    @Test
    void endpointsParse() {
        assertEquals(
                "tcp://node1:29500",
                RendezvousEndpoint.parse("tcp://node1:29500").toString());
        RendezvousEndpoint v6 = RendezvousEndpoint.parse("tcp://[::1]:7");
        assertEquals("::1", v6.host());
        assertEquals(7, v6.port());
        assertEquals(
                Path.of("/shared/x"), RendezvousEndpoint.parse("file:/shared/x").directory());
        assertEquals(
                Path.of("/shared/x"),
                RendezvousEndpoint.parse("file:///shared/x").directory());
        assertThrows(BootstrapException.class, () -> RendezvousEndpoint.parse("tcp://node1"));
        assertThrows(BootstrapException.class, () -> RendezvousEndpoint.parse("tcp://node1:0"));
    }

    @Test
    void describeShowsTheDeviceBackendsSettingsWithTheirSourcesOrDefaults() {
        Properties properties = new Properties();
        properties.setProperty("collectives.device.blocking", "true");
        properties.setProperty("collectives.device.syncTimeoutSeconds", "60");
        Bootstrap b = Bootstrap.builder()
                .environment(Map.of("COLLECTIVES_GATHER_SCATTER", "send-recv"))
                .properties(properties)
                .build();

        assertTrue(
                b.describe()
                        .endsWith(
                                "; device backends: COLLECTIVES_GATHER_SCATTER send-recv (COLLECTIVES_GATHER_SCATTER), "
                                        + "collectives.device.syncTimeoutSeconds 60 (system property "
                                        + "collectives.device.syncTimeoutSeconds), collectives.device.blocking true (system "
                                        + "property collectives.device.blocking), collectives.device.abortTimeoutSeconds 30 "
                                        + "(default), collectives.device.abortPolicy report (default), "
                                        + "collectives.device.connectAtInit unset (default)"),
                b.describe());
    }
}
