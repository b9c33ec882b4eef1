package dev.collectives.examples;

import dev.collectives.examples.interop.FrameworkInteropExample;
import dev.collectives.examples.pipelines.CustomAllocatorExample;
import dev.collectives.examples.pipelines.GradientBucketsExample;
import dev.collectives.examples.pipelines.HybridParallelExample;
import dev.collectives.examples.pipelines.IbSharpExample;
import dev.collectives.examples.pipelines.LegacyGeneralExample;
import dev.collectives.examples.pipelines.MtlinkSharpExample;
import dev.collectives.examples.pipelines.ParameterServerExample;
import dev.collectives.examples.pipelines.RingExample;
import dev.collectives.examples.pipelines.SeedArenaExample;
import dev.collectives.examples.pipelines.SeedGraphExample;
import dev.collectives.examples.pipelines.SeedLocalExample;
import dev.collectives.examples.pipelines.SymmetricWindowExample;
import java.util.List;

/** The examples the runner knows, in the order it runs them: the MCCL user-buffer-registration guide's three first. */
public final class Examples {
    private Examples() {}

    public static List<Example> all() {
        return List.of(
                new SeedGraphExample(),
                new SeedLocalExample(),
                new SeedArenaExample(),
                new IbSharpExample(),
                new MtlinkSharpExample(),
                new LegacyGeneralExample(),
                new SymmetricWindowExample(),
                new CustomAllocatorExample(),
                new RingExample(),
                new ParameterServerExample(),
                new FrameworkInteropExample(),
                new GradientBucketsExample(),
                new HybridParallelExample());
    }
}
