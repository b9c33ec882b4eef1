package dev.collectives.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Random pipeline declarations within the DSL (registrations, declared ranks or not, buffers, views and externals
 * of any type, steps of any ops with counts and offsets that may not fit): the processor either accepts one, and
 * then the declaration and its generated class compile under -Xlint:all -Werror, or rejects it with tagged
 * diagnostics only: no internal error, no javac error inside generated code, no untagged message.
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

    @Property(tries = 50)
    void eachDeclarationCompilesCleanlyOrGetsTaggedDiagnosticsOnly(@ForAll("pipelines") PipelineSpec spec) {
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
        Statistics.collect(compilation.status());
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

    @Provide
    Arbitrary<PipelineSpec> pipelines() {
        Arbitrary<BufferSpec> buffer = Combinators.combine(
                        Arbitraries.of("Buffer", "Buffer", "View", "External"), Arbitraries.of(DataType.class),
                        Arbitraries.of(true, true, false),
                                mostly(Arbitraries.integers().between(64, 300), -1, 0),
                        Arbitraries.integers().between(0, 64).map(i -> i * 4),
                                Arbitraries.of(Allocator.MEM_ALLOC, Allocator.VMM, Allocator.LEGACY))
                .as(BufferSpec::new);
        Arbitrary<OpSpec> op = Combinators.combine(
                        Arbitraries.of(OPS),
                        Arbitraries.integers().between(0, 4),
                        Arbitraries.integers().between(0, 4),
                        mostly(Arbitraries.integers().between(1, 16), -1, 0, 80),
                        mostly(Arbitraries.integers().between(0, 16), 40),
                        mostly(Arbitraries.integers().between(0, 16), 40),
                        Arbitraries.of(ReduceOp.class),
                        Arbitraries.integers().between(-1, 5))
                .as((kind, send, recv, count, so, ro, reduce, rank) -> new OpSpec(
                        kind,
                        send,
                        recv,
                        count,
                        so,
                        ro,
                        reduce,
                        rank,
                        rank % 3 == 0 ? Peer.NEXT : rank % 3 == 1 ? Peer.PREVIOUS : Peer.ABSOLUTE));
        Arbitrary<StepSpec> step = Combinators.combine(
                        op.list().ofMinSize(1).ofMaxSize(3), Arbitraries.of(false, false, true))
                .as(StepSpec::new);
        return Combinators.combine(
                        Arbitraries.of(Registration.class),
                        Arbitraries.of(0, 0, 1, 2, 4),
                        buffer.list().ofMinSize(1).ofMaxSize(4),
                        step.list().ofMinSize(0).ofMaxSize(3))
                .as(PipelineSpec::new);
    }

    /** Values of {@code usual} nine times in ten, else one of the unusual ones. */
    private static Arbitrary<Integer> mostly(Arbitrary<Integer> usual, Integer... unusual) {
        return Arbitraries.frequencyOf(Tuple.of(9, usual), Tuple.of(1, Arbitraries.of(unusual)));
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
