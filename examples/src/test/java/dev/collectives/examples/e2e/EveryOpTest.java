package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.OpPipelines.ELEMENTS;
import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static dev.collectives.examples.e2e.Ranks.filled;
import static dev.collectives.examples.e2e.Ranks.ramp;

import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every op type on sim at 2 and 4 ranks, in a LOCAL and in a GRAPH pipeline: input = ramp(rank), output starts at -1,
 * and after each step the output holds what NCCL's (and MCCL's) semantics say, element by element (untouched ones stay
 * -1).
 */
class EveryOpTest {
    private static final float UNTOUCHED = -1f;

    /** One step of a bound pipeline, with the expected output for (rank, size), or null where it is undefined. */
    private record Case(Runnable step, Expected expected) {}

    @FunctionalInterface
    private interface Expected {
        float[] of(int rank, int size);
    }

    private static Map<String, Expected> expectations() {
        Map<String, Expected> expected = new LinkedHashMap<>();
        expected.put(
                "allReduce",
                (r, n) -> write(0, 8, i -> {
                    float sum = 0;
                    for (int q = 0; q < n; q++) {
                        sum += 100f * q + i;
                    }
                    return sum;
                }));
        expected.put("allGather", (r, n) -> write(0, 4 * n, i -> 100f * (i / 4) + i % 4));
        expected.put("reduceScatter", (r, n) -> write(0, 4, i -> 100f * (n - 1) + 4 * r + i));
        expected.put("broadcast", (r, n) -> write(0, 8, i -> 100f + i));
        expected.put("reduce", (r, n) -> r == 0 ? write(0, 8, i -> (float) i) : null);
        expected.put("allToAll", (r, n) -> write(0, 2 * n, i -> 100f * (i / 2) + 2 * r + i % 2));
        // only the root receives a gather: the other ranks' output stays untouched
        expected.put("gather", (r, n) -> r == 1 ? write(0, 4 * n, i -> 100f * (i / 4) + i % 4) : write(0, 0, i -> 0f));
        expected.put("scatter", (r, n) -> write(0, 2, i -> 100f + 2 * r + i));
        expected.put("ring", (r, n) -> write(0, 8, i -> 100f * ((r - 1 + n) % n) + i));
        return expected;
    }

    private static float[] write(int from, int count, Function<Integer, Float> value) {
        float[] out = filled(ELEMENTS, UNTOUCHED);
        for (int i = from; i < from + count; i++) {
            out[i] = value.apply(i - from);
        }
        return out;
    }

    private static Map<String, Runnable> steps(OpPipelines.Local p) {
        return Map.ofEntries(
                Map.entry("allReduce", p::allReduce),
                Map.entry("allGather", p::allGather),
                Map.entry("reduceScatter", p::reduceScatter),
                Map.entry("broadcast", p::broadcast),
                Map.entry("reduce", p::reduce),
                Map.entry("allToAll", p::allToAll),
                Map.entry("gather", p::gather),
                Map.entry("scatter", p::scatter),
                Map.entry("ring", p::ring));
    }

    private static Map<String, Runnable> steps(OpPipelines.Graph p) {
        return Map.ofEntries(
                Map.entry("allReduce", p::allReduce),
                Map.entry("allGather", p::allGather),
                Map.entry("reduceScatter", p::reduceScatter),
                Map.entry("broadcast", p::broadcast),
                Map.entry("reduce", p::reduce),
                Map.entry("allToAll", p::allToAll),
                Map.entry("gather", p::gather),
                Map.entry("scatter", p::scatter),
                Map.entry("ring", p::ring));
    }

    private static void runEveryOp(
            RankContext rank, Pipeline pipeline, DeviceBuffer input, DeviceBuffer output, Map<String, Runnable> steps) {
        for (Map.Entry<String, Expected> e : expectations().entrySet()) {
            input.copyFromHost(ramp(rank.rank(), ELEMENTS));
            output.copyFromHost(filled(ELEMENTS, UNTOUCHED));
            steps.get(e.getKey()).run();
            rank.stream().synchronize();
            float[] expected = e.getValue().of(rank.rank(), rank.size());
            if (expected != null) {
                assertFloats(
                        expected,
                        output,
                        e.getKey() + " on rank " + rank.rank() + " of " + rank.size()
                                + " (" + pipeline.getClass().getSimpleName() + "), got "
                                + Arrays.toString(Ranks.read(output, ELEMENTS)));
            }
        }
    }

    @ParameterizedTest(name = "{0} at {1} ranks")
    @CsvSource({"LOCAL, 2", "LOCAL, 4", "GRAPH, 2", "GRAPH, 4"})
    void everyOpType(String registration, int ranks) {
        Ranks.run(ranks, rank -> {
            if (registration.equals("LOCAL")) {
                try (CollectiveOpPipelines_Local p = CollectiveOpPipelines_Local.bind(rank.comm(), rank.stream())) {
                    runEveryOp(rank, p, p.input(), p.output(), steps(p));
                }
            } else {
                try (CollectiveOpPipelines_Graph p = CollectiveOpPipelines_Graph.bind(rank.comm(), rank.stream())) {
                    runEveryOp(rank, p, p.input(), p.output(), steps(p));
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @CsvSource({"2", "4"})
    void unregisteredInPlaceAverage(int ranks) {
        Ranks.run(ranks, rank -> {
            try (CollectiveOpPipelines_Unregistered p =
                    CollectiveOpPipelines_Unregistered.bind(rank.comm(), rank.stream())) {
                p.data().copyFromHost(ramp(rank.rank(), ELEMENTS));
                p.average();
                rank.stream().synchronize();
                float[] expected = ramp(rank.rank(), ELEMENTS);
                for (int i = 0; i < 8; i++) {
                    expected[i] = 100f * (ranks - 1) / 2 + i;
                }
                assertFloats(expected, p.data(), "data after the in-place average of its head");
            }
        });
    }
}
