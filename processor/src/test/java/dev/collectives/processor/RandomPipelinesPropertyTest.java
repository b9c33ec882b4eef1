package dev.collectives.processor;

import static dev.collectives.testing.PropertyCases.between;
import static dev.collectives.testing.PropertyCases.listOf;
import static dev.collectives.testing.PropertyCases.oneOf;
import static dev.collectives.testing.PropertyCases.withOneSmaller;
import static dev.collectives.testing.PropertyCases.withoutOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.testing.PropertyCases;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Random pipeline declarations within the DSL (registrations, declared ranks or not, buffers, views and externals
 * of any type, steps of any ops with counts and offsets that may not fit): the processor either accepts one, and
 * then the declaration and its generated class compile under -Xlint:all -Werror, or rejects it with tagged
 * diagnostics only: no internal error, no javac error inside generated code, no untagged message. Fifty seeded
 * cases; a failing one is shrunk to fewer steps, ops and buffers before it is printed.
 */
class RandomPipelinesPropertyTest {
    private static final List<String> OPS =
            List.of("AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "Send", "Recv");

    record BufferSpec(
            String annotation, DataType type, boolean typed, int count, int offsetBytes, Allocator allocator) {}

    record OpSpec(
            String kind,
            int send,
            int recv,
            int count,
            int sendOffset,
            int recvOffset,
            ReduceOp op,
            int rank,
            Peer peer) {}

    record StepSpec(List<OpSpec> ops, boolean grouped) {}

    record PipelineSpec(Registration registration, int ranks, List<BufferSpec> buffers, List<StepSpec> steps) {}

    private static final PropertyCases<PipelineSpec> PIPELINES = new PropertyCases<>(
            50, 0x5eed_0001L, RandomPipelinesPropertyTest::pipeline, RandomPipelinesPropertyTest::smaller);

    @TestFactory
    Stream<DynamicTest> eachDeclarationCompilesCleanlyOrGetsTaggedDiagnosticsOnly() {
        return PIPELINES.check(RandomPipelinesPropertyTest::compilesCleanlyOrGetsTaggedDiagnosticsOnly);
    }

    private static void compilesCleanlyOrGetsTaggedDiagnosticsOnly(PipelineSpec spec) {
        Sources source = Sources.pipeline(render(spec), members(spec).toArray(new String[0]));
        Compilation compilation = Sources.compiler(false).compile(source.file());
        List<Diagnostic<? extends JavaFileObject>> problems = compilation.diagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR
                        || d.getKind() == Diagnostic.Kind.WARNING
                        || d.getKind() == Diagnostic.Kind.MANDATORY_WARNING)
                .collect(Collectors.toList());
        for (Diagnostic<? extends JavaFileObject> d : problems) {
            String message = d.getMessage(Locale.ROOT);
            assertTrue(message.matches("(?s)\\[(R\\d+ [A-Z-]+|DSL [a-z-]+)\\] .*"), "untagged: " + message);
            assertTrue(
                    d.getSource() != null && d.getSource().getName().endsWith("/P.java"),
                    "diagnostic outside the declaration: " + message + " in " + d.getSource());
            assertTrue(
                    !message.contains(" null") && !message.contains("dev.collectives.processor"),
                    "internal names in: " + message);
        }
        if (compilation.status() == Compilation.Status.SUCCESS) {
            assertEquals(1, compilation.generatedSourceFiles().size(), "one class per pipeline");
            List<JavaFileObject> all = new ArrayList<>(compilation.generatedSourceFiles());
            all.add(source.file());
            Compilation again = Compiler.javac()
                    .withOptions("-proc:none", "-Xlint:all", "-Werror")
                    .compile(all);
            assertEquals(
                    Compilation.Status.SUCCESS,
                    again.status(),
                    () -> "generated code does not compile cleanly: " + again.diagnostics());
        } else {
            assertTrue(problems.stream().anyMatch(d -> d.getKind() == Diagnostic.Kind.ERROR), "failed silently");
        }
    }

    private static PipelineSpec pipeline(Random random) {
        return new PipelineSpec(
                oneOf(random, Registration.values()),
                oneOf(random, 0, 0, 1, 2, 4),
                listOf(random, 1, 4, RandomPipelinesPropertyTest::buffer),
                listOf(
                        random,
                        0,
                        3,
                        r -> new StepSpec(
                                listOf(r, 1, 3, RandomPipelinesPropertyTest::op), oneOf(r, false, false, true))));
    }

    private static BufferSpec buffer(Random random) {
        return new BufferSpec(
                oneOf(random, "Buffer", "Buffer", "View", "External"),
                oneOf(random, DataType.values()),
                oneOf(random, true, true, false),
                mostly(random, between(random, 64, 300), -1, 0),
                between(random, 0, 64) * 4,
                oneOf(random, Allocator.MEM_ALLOC, Allocator.VMM, Allocator.LEGACY));
    }

    private static OpSpec op(Random random) {
        String kind = oneOf(random, OPS.toArray(new String[0]));
        int send = between(random, 0, 4);
        int recv = between(random, 0, 4);
        int count = mostly(random, between(random, 1, 16), -1, 0, 80);
        int sendOffset = mostly(random, between(random, 0, 16), 40);
        int recvOffset = mostly(random, between(random, 0, 16), 40);
        ReduceOp reduce = oneOf(random, ReduceOp.values());
        int rank = between(random, -1, 5);
        Peer peer = rank % 3 == 0 ? Peer.NEXT : rank % 3 == 1 ? Peer.PREVIOUS : Peer.ABSOLUTE;
        return new OpSpec(kind, send, recv, count, sendOffset, recvOffset, reduce, rank, peer);
    }

    /** {@code usual} nine times in ten, else one of the unusual values. */
    private static int mostly(Random random, int usual, Integer... unusual) {
        return random.nextInt(10) < 9 ? usual : oneOf(random, unusual);
    }

    /** Fewer steps, fewer buffers, fewer ops in a step, no declared ranks, smaller counts. */
    private static List<PipelineSpec> smaller(PipelineSpec spec) {
        List<PipelineSpec> variants = new ArrayList<>();
        withoutOne(spec.steps(), 0)
                .forEach(steps ->
                        variants.add(new PipelineSpec(spec.registration(), spec.ranks(), spec.buffers(), steps)));
        withoutOne(spec.buffers(), 1)
                .forEach(buffers ->
                        variants.add(new PipelineSpec(spec.registration(), spec.ranks(), buffers, spec.steps())));
        withOneSmaller(
                        spec.steps(),
                        step -> withoutOne(step.ops(), 1).stream()
                                .map(ops -> new StepSpec(ops, step.grouped()))
                                .toList())
                .forEach(steps ->
                        variants.add(new PipelineSpec(spec.registration(), spec.ranks(), spec.buffers(), steps)));
        if (spec.ranks() != 0) {
            variants.add(new PipelineSpec(spec.registration(), 0, spec.buffers(), spec.steps()));
        }
        withOneSmaller(
                        spec.buffers(),
                        b -> b.count() > 64
                                ? List.of(new BufferSpec(
                                        b.annotation(), b.type(), b.typed(), 64, b.offsetBytes(), b.allocator()))
                                : List.of())
                .forEach(buffers ->
                        variants.add(new PipelineSpec(spec.registration(), spec.ranks(), buffers, spec.steps())));
        return variants;
    }

    private static String render(PipelineSpec spec) {
        String attributes = "registration = Registration." + spec.registration();
        boolean legacy = spec.buffers().stream().anyMatch(b -> b.allocator() == Allocator.LEGACY);
        return attributes
                + (spec.ranks() > 0 ? ", ranks = " + spec.ranks() : "")
                + (legacy ? ", allowLegacyRegistration = true" : "");
    }

    /** Accessors b0, b1, ... (a view lies in b0), then steps s0, s1, ... */
    private static List<String> members(PipelineSpec spec) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < spec.buffers().size(); i++) {
            BufferSpec b = spec.buffers().get(i);
            String annotation = i == 0 && b.annotation().equals("View") ? "Buffer" : b.annotation();
            String type = "type = DataType." + b.type();
            members.add(switch (annotation) {
                        case "Buffer" ->
                            "@Buffer(" + (b.typed() ? type + ", " : "") + "count = " + b.count()
                                    + ", allocator = Allocator." + b.allocator() + ")";
                        case "View" ->
                            "@View(of = \"b0\", offsetBytes = " + b.offsetBytes() + ", " + type + ", count = "
                                    + b.count() + ")";
                        default -> "@External(" + type + ", count = " + b.count() + ")";
                    }
                    + " DeviceBuffer b" + i + "();");
        }
        for (int i = 0; i < spec.steps().size(); i++) {
            StringBuilder step = new StringBuilder(spec.steps().get(i).grouped() ? "@Grouped " : "");
            for (OpSpec o : spec.steps().get(i).ops()) {
                step.append(op(o)).append(' ');
            }
            members.add(step + "void s" + i + "();");
        }
        return members;
    }

    private static String op(OpSpec o) {
        String send = "\"b" + o.send() + "\"";
        String recv = "\"b" + o.recv() + "\"";
        String reduce = ", op = ReduceOp." + o.op();
        String offsets = ", sendOffset = " + o.sendOffset() + ", recvOffset = " + o.recvOffset();
        String peer = ", peer = Peer." + o.peer() + (o.peer() == Peer.ABSOLUTE ? ", peerRank = " + o.rank() : "");
        return "@" + o.kind() + "("
                + switch (o.kind()) {
                    case "AllReduce" ->
                        "send = " + send + ", recv = " + recv + ", count = " + o.count() + reduce + offsets;
                    case "AllGather" -> "send = " + send + ", recv = " + recv + ", sendCount = " + o.count() + offsets;
                    case "ReduceScatter" ->
                        "send = " + send + ", recv = " + recv + ", recvCount = " + o.count() + reduce + offsets;
                    case "Broadcast" ->
                        "send = " + send + ", recv = " + recv + ", count = " + o.count() + ", root = " + o.rank()
                                + offsets;
                    case "Reduce" ->
                        "send = " + send + ", recv = " + recv + ", count = " + o.count() + reduce + ", root = "
                                + o.rank() + offsets;
                    case "AllToAll" -> "send = " + send + ", recv = " + recv + ", count = " + o.count() + offsets;
                    case "Send" ->
                        "buffer = " + send + ", count = " + o.count() + ", offset = " + o.sendOffset() + peer;
                    default -> "buffer = " + recv + ", count = " + o.count() + ", offset = " + o.recvOffset() + peer;
                }
                + ")";
    }
}
