package dev.collectives.tools.faults;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.Check;
import dev.collectives.examples.HostData;
import dev.collectives.examples.Runner;
import dev.collectives.runtime.JoinedRank;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One rank of a fault job, started by {@code faults}: joins the job (its place and backend from the environment),
 * binds the pipeline of the mode and runs its steps, each waited for and checked against the sum computed on the
 * host. The culprit, the last rank, commits the fault at step {@value #FAULT_STEP}; every other rank's step must then
 * fail, and it says after how long and with what.
 */
@Command(name = FaultRankCommand.NAME, hidden = true, description = "One rank of a fault job (started by 'faults').")
public final class FaultRankCommand implements Callable<Integer> {
    static final String NAME = "faults-rank";
    /** Exit status of a rank whose step failed: what the driver expects of every rank but the culprit. */
    static final int STEP_FAILED = 4;
    /** What a rank whose step failed prints first, before the time and the message. */
    static final String FAILED = "fault: rank %d failed after ";

    static final int STEPS = 5;
    static final int FAULT_STEP = 3;
    /** The elements every rank reduces in each step. */
    static final int COUNT = 1000;

    private final PrintStream out;

    @Option(names = "--mode", required = true, paramLabel = "MODE", description = "NONE, LOCAL or GRAPH")
    Registration mode;

    @Option(names = "--fault", required = true, paramLabel = "FAULT", description = "kill, abort, silent or shapes")
    Fault fault;

    public FaultRankCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        return Runner.onJoinedRank(out, (backend, rank) -> run(rank));
    }

    private int run(JoinedRank rank) {
        int r = rank.rank();
        int culprit = rank.size() - 1;
        try (FaultStep pipeline = FaultStep.bind(mode, rank.comm(), rank.stream())) {
            for (int step = 1; step <= STEPS; step++) {
                long n = r == culprit && step == FAULT_STEP ? fault.commit(r, step, rank.comm(), COUNT, out) : COUNT;
                pipeline.send().copyFromHost(HostData.values(step, r, 0, COUNT));
                pipeline.recv().copyFromHost(HostData.untouched(COUNT));
                long start = System.nanoTime();
                try {
                    pipeline.step().accept(n);
                    rank.stream().synchronize();
                } catch (RuntimeException e) {
                    out.printf(
                            Locale.ROOT,
                            FAILED + "%d ms: %s%n",
                            r,
                            (System.nanoTime() - start) / 1_000_000,
                            Runner.failure(e).lines().findFirst().orElse(""));
                    out.flush();
                    return STEP_FAILED;
                }
                Check check = HostData.compare(
                        r, "recv of step " + step, sums(step, rank.size()), HostData.read(pipeline.recv(), COUNT));
                if (!check.isOk()) {
                    out.println("fault: WRONG: " + check.text());
                    return Runner.FAILED;
                }
            }
        }
        out.println("fault: rank " + r + " ran " + STEPS + " steps, each right, and never failed");
        return Runner.PASSED;
    }

    /** What step {@code step} sums into each element over {@code size} ranks. */
    private static float[] sums(int step, int size) {
        float[] sums = new float[COUNT];
        for (int i = 0; i < COUNT; i++) {
            sums[i] = HostData.sum(step, size, i);
        }
        return sums;
    }
}
