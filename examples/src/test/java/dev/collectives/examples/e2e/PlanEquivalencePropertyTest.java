package dev.collectives.examples.e2e;

import static dev.collectives.testing.PropertyCases.between;
import static dev.collectives.testing.PropertyCases.listOf;
import static dev.collectives.testing.PropertyCases.oneOf;
import static dev.collectives.testing.PropertyCases.withOneSmaller;
import static dev.collectives.testing.PropertyCases.withoutOne;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.CollectivesProcessor;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import dev.collectives.testing.PropertyCases;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * A step as planned computes what its ops written one by one compute, bit for bit. Random steps of allreduces,
 * reduces, broadcasts and allgathers over two buffers and a view into one of them, at offsets that often continue
 * where the previous op's range ended (so that they fuse) and otherwise lie anywhere (independent and grouped, or
 * not), written as numbers, as dims (bind decides the plan) or over a step parameter (proved for every argument),
 * are compiled twice: planned, and with {@code plan = false}. Both run on sim at 1 to 8 ranks, in every registration
 * mode, from the same data, each step twice; every byte of every buffer then agrees on every rank. Thirty seeded
 * cases, of which at least a tenth fuse and a tenth group (else the property says little of plans); a failing case
 * is shrunk to fewer steps, fewer ops and fewer ranks before it is printed.
 */
class PlanEquivalencePropertyTest {
    private static final int CAPACITY = 256;
    /** The view {@code v} lies in {@code a} from this element on, and holds half of it. */
    private static final int VIEW_AT = 64;

    private static final int VIEW_COUNT = 128;
    /** Kinds, the fusable ones more often. */
    private static final List<String> KINDS =
            List.of("AllReduce", "AllReduce", "AllReduce", "Reduce", "Broadcast", "AllGather");
    /** Send and recv buffers: the same buffer is in place; allgather takes only the pairs of two allocations. */
    private static final List<String[]> PAIRS = List.of(
            new String[] {"a", "b"},
            new String[] {"b", "a"},
            new String[] {"v", "b"},
            new String[] {"b", "v"},
            new String[] {"a", "a"},
            new String[] {"b", "b"},
            new String[] {"v", "v"});

    private static final int SEPARATE_PAIRS = 4;
    private static final int LIKE_PREVIOUS = 60;

    /** Where an op's side lies: where the last op's range in its buffer ended, or at {@code pick} (modulo room). */
    record SideSpec(boolean follows, int pick) {}

    /**
     * One op as drawn: {@code pair} below {@link #LIKE_PREVIOUS} takes the previous op's kind and buffers (so that
     * it may fuse with it), else names the buffers; {@code dimOffsets} writes its offsets as dims.
     */
    record OpSpec(
            String kind,
            int pair,
            int count,
            SideSpec send,
            SideSpec recv,
            int reduce,
            boolean lastRankRoot,
            boolean dimOffsets) {}

    record StepSpec(List<OpSpec> ops, boolean parameter) {}

    record Spec(Registration registration, int ranks, DataType type, List<StepSpec> steps, long seed) {
        Spec withSteps(List<StepSpec> fewer) {
            return new Spec(registration, ranks, type, fewer, seed);
        }
    }

    private static final int CASES = 30;

    private static final PropertyCases<Spec> PIPELINES = new PropertyCases<>(
            CASES, 0x5eed_0002L, PlanEquivalencePropertyTest::pipeline, PlanEquivalencePropertyTest::smaller);

    /** Cases whose planned class fused ops, and whose planned class grouped independent ones. */
    private final AtomicInteger fused = new AtomicInteger();

    private final AtomicInteger grouped = new AtomicInteger();

    @TestFactory
    java.util.stream.Stream<DynamicTest> plannedStepsWriteWhatTheOpsWrittenOneByOneWrite() {
        DynamicTest coverage = DynamicTest.dynamicTest("a tenth of the cases fuse, a tenth group", () -> {
            assertTrue(fused.get() * 10 >= CASES, fused + " of " + CASES + " cases fused");
            assertTrue(grouped.get() * 10 >= CASES, grouped + " of " + CASES + " cases grouped");
        });
        return java.util.stream.Stream.concat(
                PIPELINES.check(this::plannedWritesWhatWrittenWrites), java.util.stream.Stream.of(coverage));
    }

    private void plannedWritesWhatWrittenWrites(Spec spec) throws Exception {
        Declared declared = new Declared(spec);
        Compilation compilation = Compiler.javac()
                .withProcessors(new CollectivesProcessor())
                .compile(
                        JavaFileObjects.forSourceString("test.P", declared.source("P", true)),
                        JavaFileObjects.forSourceString("test.Q", declared.source("Q", false)));
        assertEquals(
                Compilation.Status.SUCCESS,
                compilation.status(),
                () -> declared.source("P", true) + "\n" + compilation.diagnostics());
        String planned = compilation
                .generatedSourceFile("test.CollectiveP")
                .orElseThrow()
                .getCharContent(true)
                .toString();
        if (planned.contains("// fused: ")) {
            fused.incrementAndGet();
        }
        if (planned.contains("are independent; one launch")) {
            grouped.incrementAndGet();
        }
        ClassLoader loader =
                new CompiledClasses(compilation.generatedFiles(), getClass().getClassLoader());
        Class<?> plannedClass = loader.loadClass("test.CollectiveP");
        Class<?> writtenClass = loader.loadClass("test.CollectiveQ");
        try (LocalCluster cluster = Backends.get("sim").local(spec.ranks())) {
            cluster.run(rank -> {
                try (Pipeline p = declared.bind(plannedClass, rank.comm(), rank.stream());
                        Pipeline q = declared.bind(writtenClass, rank.comm(), rank.stream())) {
                    for (String root : List.of("a", "b")) {
                        byte[] data = declared.data(rank.rank(), root);
                        buffer(p, root).copyFromHost(data);
                        buffer(q, root).copyFromHost(data);
                    }
                    declared.run(p);
                    declared.run(q);
                    rank.stream().synchronize();
                    for (String root : List.of("a", "b")) {
                        assertArrayEquals(
                                bytes(buffer(q, root)),
                                bytes(buffer(p, root)),
                                () -> "rank " + rank.rank() + ", buffer " + root + " of\n" + declared.source("P", true)
                                        + "\n" + p.describe());
                    }
                }
            });
        }
    }

    private static DeviceBuffer buffer(Pipeline p, String accessor) throws ReflectiveOperationException {
        return (DeviceBuffer) p.getClass().getMethod(accessor).invoke(p);
    }

    private static byte[] bytes(DeviceBuffer buffer) {
        byte[] bytes = new byte[(int) buffer.sizeBytes()];
        buffer.copyToHost(bytes);
        return bytes;
    }

    private static Spec pipeline(Random random) {
        return new Spec(
                oneOf(random, Registration.values()),
                between(random, 1, 8),
                oneOf(random, DataType.FLOAT32, DataType.FLOAT64, DataType.INT32, DataType.INT64),
                listOf(
                        random,
                        1,
                        3,
                        r -> new StepSpec(
                                listOf(r, 2, 6, PlanEquivalencePropertyTest::op), oneOf(r, false, false, true))),
                random.nextLong());
    }

    private static OpSpec op(Random random) {
        return new OpSpec(
                oneOf(random, KINDS.toArray(new String[0])),
                between(random, 0, 99),
                between(random, 1, 16),
                side(random),
                side(random),
                between(random, 0, 9),
                oneOf(random, false, true),
                oneOf(random, false, false, false, true));
    }

    /** Follows the previous op's range three times in four. */
    private static SideSpec side(Random random) {
        return new SideSpec(random.nextInt(4) < 3, between(random, 0, CAPACITY));
    }

    /** Fewer steps, fewer ops in a step (two at least, the least that fuses), fewer ranks. */
    private static List<Spec> smaller(Spec spec) {
        List<Spec> variants = new ArrayList<>();
        withoutOne(spec.steps(), 1).forEach(steps -> variants.add(spec.withSteps(steps)));
        withOneSmaller(
                        spec.steps(),
                        step -> withoutOne(step.ops(), 2).stream()
                                .map(ops -> new StepSpec(ops, step.parameter()))
                                .toList())
                .forEach(steps -> variants.add(spec.withSteps(steps)));
        if (spec.ranks() > 1) {
            variants.add(new Spec(spec.registration(), spec.ranks() / 2, spec.type(), spec.steps(), spec.seed()));
        }
        return variants;
    }

    /**
     * A spec resolved into concrete ops: offsets that fit their buffers, dims and their values, the arguments of
     * steps with a parameter; and the declaration, the data and the calls.
     */
    private static final class Declared {
        private final Spec spec;
        private final List<String> steps = new ArrayList<>();
        /** Step name → the arguments it is called with, each call once; empty for a step without parameters. */
        private final Map<String, List<Long>> arguments = new HashMap<>();

        private final Map<String, Long> dims = new LinkedHashMap<>();

        Declared(Spec spec) {
            this.spec = spec;
            for (int s = 0; s < spec.steps().size(); s++) {
                StepSpec step = spec.steps().get(s);
                String name = "run" + s;
                StringBuilder text = new StringBuilder();
                Map<String, Integer> sendEnds = new HashMap<>();
                Map<String, Integer> recvEnds = new HashMap<>();
                int room = CAPACITY;
                OpSpec previous = null;
                for (OpSpec drawn : step.ops()) {
                    OpSpec o = previous != null && drawn.pair() < LIKE_PREVIOUS
                            ? new OpSpec(
                                    previous.kind(),
                                    previous.pair(),
                                    drawn.count(),
                                    drawn.send(),
                                    drawn.recv(),
                                    drawn.reduce(),
                                    drawn.lastRankRoot(),
                                    drawn.dimOffsets())
                            : drawn;
                    previous = o;
                    boolean gather = o.kind().equals("AllGather");
                    String[] pair = PAIRS.get(o.pair() % (gather ? SEPARATE_PAIRS : PAIRS.size()));
                    int recvCount = gather ? o.count() * spec.ranks() : o.count();
                    int sendOffset = offset(pair[0], o.count(), o.send(), sendEnds);
                    int recvOffset =
                            pair[0].equals(pair[1]) ? sendOffset : offset(pair[1], recvCount, o.recv(), recvEnds);
                    sendEnds.put(pair[0], sendOffset + o.count());
                    recvEnds.put(pair[1], recvOffset + recvCount);
                    room = Math.min(
                            room,
                            Math.min(
                                    capacity(pair[0]) - sendOffset - o.count(),
                                    capacity(pair[1]) - recvOffset - recvCount));
                    text.append(op(o, pair, sendOffset, recvOffset, step.parameter()))
                            .append('\n');
                }
                steps.add(text + "  void " + name + (step.parameter() ? "(long p);" : "();"));
                arguments.put(name, step.parameter() ? List.of(0L, (long) room) : List.of());
            }
        }

        private static int capacity(String buffer) {
            return buffer.equals("v") ? VIEW_COUNT : CAPACITY;
        }

        /** Where the last op's range on the buffer ended, where asked and there is room, else anywhere it fits. */
        private static int offset(String buffer, int extent, SideSpec side, Map<String, Integer> ends) {
            Integer end = ends.get(buffer);
            if (side.follows() && end != null && end + extent <= capacity(buffer)) {
                return end;
            }
            return side.pick() % (capacity(buffer) - extent + 1);
        }

        private String op(OpSpec o, String[] pair, int sendOffset, int recvOffset, boolean parameter) {
            boolean gather = o.kind().equals("AllGather");
            String count = gather ? "sendCount" : "count";
            StringBuilder a = new StringBuilder("  @" + o.kind() + "(send = \"" + pair[0] + "\", recv = \"" + pair[1]
                    + "\", " + count + " = " + o.count());
            a.append(offset("sendOffset", sendOffset, o, parameter))
                    .append(offset("recvOffset", recvOffset, o, parameter));
            if (!o.kind().equals("Broadcast") && !gather) {
                a.append(", op = ReduceOp.").append(reduce(o.reduce()));
            }
            if (o.kind().equals("Broadcast") || o.kind().equals("Reduce")) {
                a.append(", root = ").append(o.lastRankRoot() ? spec.ranks() - 1 : 0);
            }
            return a.append(")").toString();
        }

        /** An offset as a number, over the step's parameter, or as a dim bound to it (dims are at least 1). */
        private String offset(String attribute, int value, OpSpec o, boolean parameter) {
            if (parameter) {
                return ", " + attribute + "Expr = \"p + " + value + "\"";
            }
            if (o.dimOffsets() && value > 0) {
                String dim = "d" + dims.size();
                dims.put(dim, (long) value);
                return ", " + attribute + "Expr = \"" + dim + "\"";
            }
            return ", " + attribute + " = " + value;
        }

        /** SUM most often: it is what fuses with the op before. */
        private ReduceOp reduce(int pick) {
            List<ReduceOp> ops = new ArrayList<>(List.of(
                    ReduceOp.SUM,
                    ReduceOp.SUM,
                    ReduceOp.SUM,
                    ReduceOp.SUM,
                    ReduceOp.SUM,
                    ReduceOp.MAX,
                    ReduceOp.MIN,
                    ReduceOp.PROD,
                    ReduceOp.SUM));
            ops.add(spec.type() == DataType.FLOAT32 || spec.type() == DataType.FLOAT64 ? ReduceOp.AVG : ReduceOp.SUM);
            return ops.get(pick);
        }

        String source(String name, boolean planned) {
            StringBuilder s = new StringBuilder("package test;\nimport dev.collectives.annotation.*;\n"
                    + "import dev.collectives.runtime.DeviceBuffer;\n");
            s.append("@CollectivePipeline(registration = Registration.")
                    .append(spec.registration())
                    .append(", ranks = ")
                    .append(spec.ranks())
                    .append(planned ? "" : ", plan = false")
                    .append(")\npublic interface ")
                    .append(name)
                    .append(" {\n");
            dims.keySet().forEach(d -> s.append("  @Dim long ").append(d).append("();\n"));
            String type = "type = DataType." + spec.type();
            s.append("  @Buffer(")
                    .append(type)
                    .append(", count = ")
                    .append(CAPACITY)
                    .append(") DeviceBuffer a();\n");
            s.append("  @Buffer(")
                    .append(type)
                    .append(", count = ")
                    .append(CAPACITY)
                    .append(") DeviceBuffer b();\n");
            s.append("  @View(of = \"a\", offsetBytes = ")
                    .append(VIEW_AT * spec.type().size())
                    .append(", ")
                    .append(type)
                    .append(", count = ")
                    .append(VIEW_COUNT)
                    .append(") DeviceBuffer v();\n");
            steps.forEach(step -> s.append(step).append('\n'));
            return s.append("}\n").toString();
        }

        /** {@code bind(comm, stream)}, or the binder with each dim's value. */
        Pipeline bind(Class<?> generated, Communicator comm, Stream stream) throws ReflectiveOperationException {
            if (dims.isEmpty()) {
                return (Pipeline) generated
                        .getMethod("bind", Communicator.class, Stream.class)
                        .invoke(null, comm, stream);
            }
            Object binder = generated
                    .getMethod("binder", Communicator.class, Stream.class)
                    .invoke(null, comm, stream);
            for (Map.Entry<String, Long> dim : dims.entrySet()) {
                binder.getClass().getMethod(dim.getKey(), long.class).invoke(binder, dim.getValue());
            }
            return (Pipeline) binder.getClass().getMethod("bind").invoke(binder);
        }

        /** Every step in order with each of its arguments, twice: the second pass starts from the first's results. */
        void run(Pipeline p) throws ReflectiveOperationException {
            for (int pass = 0; pass < 2; pass++) {
                for (int s = 0; s < steps.size(); s++) {
                    String name = "run" + s;
                    List<Long> args = arguments.get(name);
                    if (args.isEmpty()) {
                        p.getClass().getMethod(name).invoke(p);
                    }
                    for (long arg : args) {
                        p.getClass().getMethod(name, long.class).invoke(p, arg);
                    }
                }
            }
        }

        /** A buffer's contents on one rank, drawn from the spec's seed: small multiples of 1/8 for floats. */
        byte[] data(int rank, String buffer) {
            Random random = new Random(spec.seed() * 31 + rank * 2 + (buffer.equals("a") ? 0 : 1));
            ByteBuffer bytes =
                    ByteBuffer.allocate(CAPACITY * spec.type().size()).order(ByteOrder.nativeOrder());
            for (int i = 0; i < CAPACITY; i++) {
                switch (spec.type()) {
                    case FLOAT32 -> bytes.putFloat((random.nextInt(2001) - 1000) / 8f);
                    case FLOAT64 -> bytes.putDouble((random.nextInt(2001) - 1000) / 8.0);
                    case INT32 -> bytes.putInt(random.nextInt());
                    default -> bytes.putLong(random.nextLong());
                }
            }
            return bytes.array();
        }
    }

    /** The classes a compilation wrote, loaded beside this test's (the runtime's) classes. */
    private static final class CompiledClasses extends ClassLoader {
        private final Map<String, byte[]> classes = new HashMap<>();

        CompiledClasses(List<JavaFileObject> files, ClassLoader parent) throws java.io.IOException {
            super(parent);
            for (JavaFileObject f : files) {
                if (f.getKind() == JavaFileObject.Kind.CLASS) {
                    String path = f.toUri().getPath();
                    String name = path.substring(path.indexOf("/test/") + 1, path.length() - ".class".length());
                    try (var in = f.openInputStream()) {
                        classes.put(name.replace('/', '.'), in.readAllBytes());
                    }
                }
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = classes.get(name);
            if (bytes == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, bytes, 0, bytes.length);
        }
    }
}
