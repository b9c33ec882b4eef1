package dev.collectives.examples.pipelines;

import dev.collectives.examples.Example;
import dev.collectives.runtime.RankContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * seed-graph, except that one rank halts its JVM (no shutdown hooks, no goodbye to its peers) as its second step
 * begins: the other ranks are then inside that step's allreduces, waiting for it.
 */
public final class SeedGraphHaltingInStep implements Example {
    private final SeedGraphExample example = new SeedGraphExample();
    private final int doomed;
    private final int status;

    /** Rank {@code doomed} halts with exit status {@code status}. */
    public SeedGraphHaltingInStep(int doomed, int status) {
        this.doomed = doomed;
        this.status = status;
    }

    @Override
    public String name() {
        return example.name();
    }

    @Override
    public String summary() {
        return example.summary() + "; rank " + doomed + " halts in its step " + SeedAllReduces.ITERATIONS;
    }

    @Override
    public RankReport run(RankContext rank) {
        if (rank.rank() != doomed) {
            return example.run(rank);
        }
        try (CollectiveSeedGraphRegistration pipeline =
                CollectiveSeedGraphRegistration.bind(rank.comm(), rank.stream())) {
            AtomicInteger steps = new AtomicInteger();
            return new RankReport(
                    pipeline.describe(), SeedAllReduces.run(rank, pipeline.sendbuff(), pipeline.recvbuff(), () -> {
                        if (steps.incrementAndGet() == SeedAllReduces.ITERATIONS) {
                            System.out.println("halting rank " + doomed + " as its step " + steps + " begins");
                            System.out.flush();
                            Runtime.getRuntime().halt(status);
                        }
                        pipeline.step();
                    }));
        }
    }
}
