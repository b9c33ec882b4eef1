package dev.collectives.tools.differential;

import dev.collectives.annotation.Allocator;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Clusters;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import dev.collectives.tools.differential.PipelineSpec.Accessor;
import dev.collectives.tools.differential.PipelineSpec.AccessorKind;
import dev.collectives.tools.differential.PipelineSpec.Call;
import dev.collectives.tools.differential.PipelineSpec.Dim;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A corpus pipeline as an item: binds its generated class (externals allocated here, each passed as a slice at its
 * pad), then for each call fills every allocation with this rank's inputs, calls the step and reads every allocation
 * back whole, so that a write outside an op's range shows as well as a wrong value.
 *
 * @param spec   the pipeline
 * @param loader where its compiled classes are
 * @param seed   the corpus's seed, part of every input's key
 */
record CorpusItem(PipelineSpec spec, ClassLoader loader, long seed) implements Item {
    @Override
    public String name() {
        return spec.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Part part() {
        return Part.CORPUS;
    }

    /** Pipelines that register {@code cudaMalloc} memory need the legacy-registration variable. */
    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.needing(ClusterSpec.Need.LEGACY_REGISTER);
    }

    @Override
    public Duration timeout() {
        return Clusters.EXAMPLE_TIMEOUT;
    }

    @Override
    public Tolerance tolerance(int ranks) {
        return new ReductionBound(ranks, spec.floatingReductions());
    }

    @Override
    public String reproducer() {
        return PipelineSource.write(spec) + "bound with "
                + spec.dims().stream()
                        .map(d -> d.name() + " = " + d.value())
                        .collect(Collectors.joining(", ", "dims [", "]"))
                + spec.roots().stream()
                        .filter(a -> a.kind() == AccessorKind.EXTERNAL)
                        .map(a -> a.name() + " at element " + a.pad())
                        .collect(Collectors.joining(", ", ", externals [", "]"))
                + "; calls " + spec.calls().stream().map(Call::describe).collect(Collectors.joining(", "))
                + "; inputs of seed " + seed + "\n";
    }

    @Override
    public Outcome run(RankContext rank) throws Exception {
        Communicator comm = rank.comm();
        Class<?> generated = loader.loadClass(PipelineSpec.PACKAGE + ".Collective" + spec.name());
        Map<String, DeviceBuffer> externalAllocations = new LinkedHashMap<>();
        try {
            Map<String, DeviceBuffer> externals = new LinkedHashMap<>();
            for (Accessor a : spec.roots()) {
                if (a.kind() == AccessorKind.EXTERNAL) {
                    DeviceBuffer allocation =
                            comm.allocate(Allocator.MEM_ALLOC, a.type(), spec.elements(a, rank.size()));
                    externalAllocations.put(a.name(), allocation);
                    externals.put(a.name(), allocation.slice(a.pad(), allocation.count() - a.pad()));
                }
            }
            try (Pipeline pipeline = bind(generated, comm, rank.stream(), externals)) {
                Map<String, DeviceBuffer> allocations = new LinkedHashMap<>();
                for (Accessor a : spec.roots()) {
                    allocations.put(
                            a.name(),
                            a.kind() == AccessorKind.EXTERNAL
                                    ? externalAllocations.get(a.name())
                                    : (DeviceBuffer) invoke(generated.getMethod(a.name()), pipeline));
                }
                return Outcome.ran(calls(rank, generated, pipeline, allocations));
            }
        } finally {
            externalAllocations.values().forEach(DeviceBuffer::close);
        }
    }

    private List<Output> calls(
            RankContext rank, Class<?> generated, Pipeline pipeline, Map<String, DeviceBuffer> allocations)
            throws Exception {
        List<Output> outputs = new ArrayList<>();
        for (int c = 0; c < spec.calls().size(); c++) {
            Call call = spec.calls().get(c);
            for (Accessor a : spec.roots()) {
                DeviceBuffer allocation = allocations.get(a.name());
                allocation.copyFromHost(InputData.fill(
                        spec.segments(a, rank.size()),
                        allocation.sizeBytes(),
                        seed,
                        spec.name().hashCode(),
                        c,
                        rank.rank(),
                        a.name().hashCode()));
            }
            Method step = call.args().length == 0
                    ? generated.getMethod(call.step())
                    : generated.getMethod(call.step(), long.class, long.class);
            invoke(step, pipeline, Arrays.stream(call.args()).boxed().toArray());
            rank.stream().synchronize();
            for (Accessor a : spec.roots()) {
                DeviceBuffer allocation = allocations.get(a.name());
                byte[] bytes = new byte[Math.toIntExact(allocation.sizeBytes())];
                allocation.copyToHost(bytes);
                outputs.add(new Output(
                        "call " + (c + 1) + " " + call.describe() + ": " + a.name(),
                        spec.segments(a, rank.size()),
                        bytes));
            }
        }
        return outputs;
    }

    /** {@code bind(comm, stream, externals...)}, or with dims {@code binder(comm, stream)....bind()}. */
    private Pipeline bind(Class<?> generated, Communicator comm, Stream stream, Map<String, DeviceBuffer> externals)
            throws Exception {
        if (spec.dims().isEmpty()) {
            Class<?>[] parameters = new Class<?>[2 + externals.size()];
            Arrays.fill(parameters, DeviceBuffer.class);
            parameters[0] = Communicator.class;
            parameters[1] = Stream.class;
            List<Object> arguments = new ArrayList<>(List.of(comm, stream));
            arguments.addAll(externals.values());
            return (Pipeline) invoke(generated.getMethod("bind", parameters), null, arguments.toArray());
        }
        Object binder = invoke(generated.getMethod("binder", Communicator.class, Stream.class), null, comm, stream);
        for (Dim dim : spec.dims()) {
            if (dim.declaredInt()) {
                invoke(binder.getClass().getMethod(dim.name(), int.class), binder, Math.toIntExact(dim.value()));
            } else {
                invoke(binder.getClass().getMethod(dim.name(), long.class), binder, dim.value());
            }
        }
        for (Map.Entry<String, DeviceBuffer> external : externals.entrySet()) {
            invoke(binder.getClass().getMethod(external.getKey(), DeviceBuffer.class), binder, external.getValue());
        }
        return (Pipeline) invoke(binder.getClass().getMethod("bind"), binder);
    }

    /** A reflective call that throws what the method threw. */
    private static Object invoke(Method method, Object target, Object... arguments) throws Exception {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}
