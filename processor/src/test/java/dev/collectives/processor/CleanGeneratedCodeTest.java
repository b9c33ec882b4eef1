package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The writer's other branches (bind-time rule checks, windows, roots and peers checked against the communicator,
 * names that clash with the generated class's own) also yield code that compiles under -Xlint:all -Werror.
 */
class CleanGeneratedCodeTest {
    private static final String AB = "@Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a(); "
            + "@Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b(); ";

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                // R8 ranks-per-node check, R3 check of an external under MTLink SHARP
                "registration = Registration.LOCAL, acceleration = {Acceleration.IB_SHARP, Acceleration.MTLINK_SHARP} | "
                        + AB + "@External(type = DataType.FLOAT32, count = 8) DeviceBuffer x(); "
                        + "@AllReduce(send = \"x\", recv = \"b\", count = 8) @ReduceScatter(send = \"a\", recv = \"b\", "
                        + "recvCount = 4) void step();",
                // R9: legacy buffers and externals with the opt-in
                "registration = Registration.GRAPH, allowLegacyRegistration = true | "
                        + "@Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.LEGACY) DeviceBuffer a(); "
                        + "@External(type = DataType.FLOAT32, count = 64) DeviceBuffer b(); "
                        + "@Broadcast(send = \"a\", recv = \"b\", count = 8, root = 1) void step();",
                // roots and absolute peers checked at bind; declared ranks checked at bind
                "registration = Registration.NONE | " + AB + "@Reduce(send = \"a\", recv = \"b\", count = 8, root = 3) "
                        + "@Send(buffer = \"a\", count = 4, peer = Peer.ABSOLUTE, peerRank = 2) void step();",
                "registration = Registration.LOCAL, ranks = 2 | " + AB
                        + "@AllToAll(send = \"a\", recv = \"b\", count = 8) " + "@Grouped void step();",
                // asymmetric window on a view; unregistered buffers in LOCAL (a window registers its memory: not those)
                "registration = Registration.LOCAL | @Buffer(count = 65536) DeviceBuffer block(); "
                        + "@Window(symmetric = false) @View(of = \"block\", offsetBytes = 4096, type = DataType.FLOAT32, "
                        + "count = 64) DeviceBuffer w(); @View(of = \"block\", type = DataType.FLOAT32, count = 64) "
                        + "DeviceBuffer v(); @AllReduce(send = \"v\", recv = \"w\", count = 64) void step(); "
                        + "@Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer a(); "
                        + "@Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer b(); "
                        + "@AllReduce(send = \"a\", recv = \"b\", count = 64) void unregistered();",
                // accessors and steps named like the generated class's members
                "registration = Registration.GRAPH | @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer comm(); "
                        + "@Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer stream(); "
                        + "@External(type = DataType.FLOAT32, count = 64) DeviceBuffer pipeline(); "
                        + "@AllReduce(send = \"comm\", recv = \"stream\", count = 8) void open(); "
                        + "@AllReduce(send = \"pipeline\", sendOffset = 8, recv = \"stream\", count = 8) void closed();",
                // no steps; no allocations of its own
                "registration = Registration.GRAPH | @Buffer(count = 4096) DeviceBuffer scratch();",
                "registration = Registration.LOCAL | @External(type = DataType.INT8, count = 16) DeviceBuffer x(); "
                        + "@External(type = DataType.INT8, count = 16) DeviceBuffer y(); "
                        + "@Broadcast(send = \"x\", recv = \"y\", count = 16, root = 0) void step();",
                // nested types named like the runtime types the generated class uses
                "registration = Registration.LOCAL | " + AB
                        + "@AllReduce(send = \"a\", recv = \"b\", count = 8) void step(); "
                        + "interface Stream { } final class Communicator { } enum ReduceOp { X } final class Rule { }",
            })
    void compilesWithoutWarnings(String declaration) {
        String[] parts = declaration.split(" \\| ");
        Sources s = Sources.pipeline(parts[0], parts[1]);
        Compilation compilation = Sources.compiler(true).compile(s.file());
        assertThat(compilation).succeededWithoutWarnings();
        assertThat(compilation).generatedSourceFile("test.CollectiveP");
    }
}
