package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the runner reports when an example computes a wrong result or throws, and when a mistake is not caught or
 * caught under another rule: each with exit status 1, so that a broken pipeline can never pass.
 */
class RunnerFailuresTest {
    private static final int COUNT = 1024;

    /** Allreduces only the first half of what it checks, as a wrong count in a declaration would. */
    private static final Example HALF_ALLREDUCE = new TestExample("half-allreduce") {
        @Override
        public RankReport run(RankContext rank) {
            try (DeviceBuffer send = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
                    DeviceBuffer recv = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT)) {
                send.copyFromHost(HostData.values(1, rank.rank(), 0, COUNT));
                recv.copyFromHost(HostData.untouched(COUNT));
                rank.comm().allReduce(send, recv, COUNT / 2, DataType.FLOAT32, ReduceOp.SUM, rank.stream());
                rank.stream().synchronize();
                float[] expected = new float[COUNT];
                for (int j = 0; j < COUNT; j++) {
                    expected[j] = HostData.sum(1, rank.size(), j);
                }
                return new RankReport(
                        "allReduce recvbuff[0, 512)",
                        HostData.compare(rank.rank(), "recvbuff", expected, HostData.read(recv)));
            }
        }
    };

    private static final Example THROWS_ON_RANK_1 = new TestExample("throws-on-rank-1") {
        @Override
        public RankReport run(RankContext rank) {
            if (rank.rank() == 1) {
                throw new IllegalStateException("deliberate failure");
            }
            return new RankReport("nothing", Check.ok("nothing"));
        }
    };

    @Test
    void aWrongElementIsReportedWithExpectedAndActualValues() {
        RunnerOutput run = RunnerOutput.of(List.of(HALF_ALLREDUCE), List.of(), "--backend", "sim", "--ranks", "2");

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(
                run.text()
                        .contains("check: WRONG: rank 0: recvbuff[512] expected " + HostData.sum(1, 2, 512)
                                + " but was " + HostData.UNTOUCHED),
                run.text());
        assertTrue(run.text().contains("examples: 0 passed, 0 skipped, 1 failed"), run.text());
    }

    @Test
    void anExceptionOnOneRankFailsTheExampleNamingTheRank() {
        RunnerOutput run = RunnerOutput.of(
                List.of(THROWS_ON_RANK_1, HALF_ALLREDUCE),
                List.of(),
                "--backend",
                "sim",
                "--ranks",
                "2",
                "--example",
                "throws-on-rank-1");

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(
                run.text().contains("FAILED: rank 1 failed: java.lang.IllegalStateException: deliberate failure"),
                run.text());
        assertTrue(!run.text().contains("half-allreduce"), "only the selected example runs: " + run.text());
    }

    @Test
    void aMistakeThatIsNotCaughtFails() {
        RunnerOutput run = RunnerOutput.of(
                List.of(),
                List.of(new TestMistake(Rule.R14_SHAPE, null)),
                "--backend",
                "sim",
                "--ranks",
                "2",
                "--mistakes");

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(run.text().contains("FAILED: not caught"), run.text());
    }

    @Test
    void aMistakeCaughtUnderAnotherRuleFails() {
        RunnerOutput run = RunnerOutput.of(
                List.of(),
                List.of(new TestMistake(Rule.R14_SHAPE, Rule.R5_GRAPH_LIFETIME)),
                "--backend",
                "sim",
                "--ranks",
                "2",
                "--mistakes");

        assertEquals(Runner.FAILED, run.status(), run.text());
        assertTrue(run.text().contains("but got: ranks 0, 1 failed: [R5 GRAPH-LIFETIME] "), run.text());
    }

    private abstract static class TestExample implements Example {
        private final String name;

        TestExample(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String summary() {
            return "a broken example for the runner's tests";
        }
    }

    /** Expects {@code expected}; throws {@code thrown} on every rank, or nothing when it is null. */
    private record TestMistake(Rule expected, Rule thrown) implements Mistake {
        @Override
        public String name() {
            return "test-mistake";
        }

        @Override
        public String summary() {
            return "a mistake for the runner's tests";
        }

        @Override
        public Rule rule() {
            return expected;
        }

        @Override
        public void run(RankContext rank) {
            if (thrown != null) {
                throw CollectivesException.violation(thrown, rank.rank(), "thrown by the test");
            }
        }
    }
}
