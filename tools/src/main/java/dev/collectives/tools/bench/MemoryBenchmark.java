package dev.collectives.tools.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.DeviceCommunicator;
import dev.collectives.examples.BackendOption;
import dev.collectives.examples.BuildVersion;
import dev.collectives.examples.HelpAndVersion;
import dev.collectives.examples.pipelines.CollectiveSeedGraphRegistration;
import dev.collectives.examples.pipelines.CollectiveSeedLocalRegistration;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Device memory that the project's objects take, from the driver's free-memory figure before and after making
 * {@code --instances} of each (so the driver's 2 MiB pages average out): a communicator with its stream; each
 * seed pipeline bound (LOCAL, GRAPH) beyond its buffers, beside the same buffers, registrations and capture made
 * by hand. The difference between a pipeline and its hand-written twin is the project's own; what a
 * communicator takes is compared with {@code gpu/native_bench memory} (the same made from C).
 */
@Command(
        name = "memory",
        versionProvider = BuildVersion.class,
        sortOptions = false,
        description = "Measures the device memory of a communicator and of a bound pipeline beyond its buffers, on a"
                + " GPU: it needs nccl or mccl (sim has no device memory).",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:measured",
            "1:the run failed (a backend without device memory, such as sim)",
            "2:a bad command line, or an unavailable backend"
        })
public final class MemoryBenchmark implements Callable<Integer> {
    @Mixin
    HelpAndVersion options = new HelpAndVersion();

    private static final long MIB = 1 << 20;
    private static final long SEED_BUFFER_BYTES = 2 * 4 * MIB; // two 1 Mi-element float32 buffers

    @Mixin
    BackendOption backend = new BackendOption("nccl");

    @Option(
            names = "--instances",
            paramLabel = "N",
            defaultValue = "8",
            description = "objects made of each kind; the figure is per object; default: ${DEFAULT-VALUE}")
    int instances;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(BenchCommandLine.of(new MemoryBenchmark()).execute(args));
    }

    @Override
    public Integer call() {
        Backend b = backend.get();
        BenchCommandLine.positive(spec, "--instances", instances);
        System.out.printf(
                "# MemoryBenchmark: backend %s, 1 rank, %d instances each; device memory used (total − "
                        + "free) before and after, per instance, MiB%n",
                b.name(), instances);
        try (LocalCluster first = b.local(1)) { // the context and a first communicator
            first.run(ctx -> {
                if (!(ctx.comm() instanceof DeviceCommunicator device)) {
                    throw new IllegalArgumentException("bench memory needs a GPU backend (nccl or mccl): backend "
                            + b.name() + " has no device memory to measure");
                }
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                long before = device.deviceMemoryUsed();
                List<LocalCluster> clusters = new ArrayList<>();
                for (int i = 0; i < instances; i++) {
                    LocalCluster c = b.local(1);
                    c.run(x -> x.stream().synchronize());
                    clusters.add(c);
                }
                line("communicator with its stream", before, device.deviceMemoryUsed(), 0);
                clusters.forEach(LocalCluster::close);
                measure(
                        device,
                        "LOCAL pipeline (SeedLocalRegistration), bound and stepped",
                        () -> stepped(CollectiveSeedLocalRegistration.bind(comm, stream), stream));
                measure(
                        device,
                        "  by hand: the same buffers, registered, the ops run",
                        () -> byHand(comm, stream, false));
                measure(
                        device,
                        "GRAPH pipeline (SeedGraphRegistration), bound and stepped",
                        () -> stepped(CollectiveSeedGraphRegistration.bind(comm, stream), stream));
                measure(
                        device,
                        "  by hand: the same buffers, the ops captured and launched",
                        () -> byHand(comm, stream, true));
            });
        }
        return BenchCommandLine.PASSED;
    }

    private void measure(DeviceCommunicator device, String what, Supplier<AutoCloseable> make) throws Exception {
        long before = device.deviceMemoryUsed();
        List<AutoCloseable> made = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            made.add(make.get());
        }
        long after = device.deviceMemoryUsed();
        Collections.reverse(made);
        for (AutoCloseable m : made) {
            m.close();
        }
        line(what, before, after, SEED_BUFFER_BYTES);
    }

    private void line(String what, long before, long after, long buffers) {
        double perInstance = (after - before) / (double) instances / MIB;
        System.out.printf(
                Locale.ROOT,
                "  %-62s %10.1f -> %10.1f  per instance %8.2f%s%n",
                what,
                before / (double) MIB,
                after / (double) MIB,
                perInstance,
                buffers == 0
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                ", beyond its %d MiB of buffers %8.2f",
                                buffers / MIB,
                                perInstance - buffers / (double) MIB));
    }

    private static AutoCloseable stepped(dev.collectives.runtime.Pipeline pipeline, Stream stream) {
        if (pipeline instanceof CollectiveSeedLocalRegistration) {
            ((CollectiveSeedLocalRegistration) pipeline).step();
        } else {
            ((CollectiveSeedGraphRegistration) pipeline).step();
        }
        stream.synchronize();
        return pipeline;
    }

    /**
     * The guide's two allreduces (its examples 1 and 2) on two 4 MiB buffers, registered (LOCAL) or captured and
     * launched (GRAPH).
     */
    private static AutoCloseable byHand(Communicator comm, Stream stream, boolean graph) {
        DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, MIB);
        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, MIB);
        List<AutoCloseable> owned = new ArrayList<>(List.of(recv, send));
        Runnable ops = () -> {
            comm.allReduce(send, recv, 1024, DataType.FLOAT32, ReduceOp.SUM, stream);
            comm.allReduce(
                    send.slice(1024, 1024), recv.slice(2048, 1024), 1024, DataType.FLOAT32, ReduceOp.SUM, stream);
        };
        if (graph) {
            stream.beginCapture();
            ops.run();
            Graph g = stream.endCapture();
            GraphExec exec = g.instantiate();
            exec.launch(stream);
            owned.add(0, g);
            owned.add(0, exec);
        } else {
            owned.add(0, comm.register(recv));
            owned.add(0, comm.register(send));
            ops.run();
        }
        stream.synchronize();
        return () -> {
            for (AutoCloseable o : owned) {
                o.close();
            }
        };
    }
}
