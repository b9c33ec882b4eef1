package dev.collectives.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.ScriptedDevice;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same bad calls on every backend, which must refuse each with the same tag (or result) and words: the table
 * {@link #BAD_CALLS} runs against each {@link Backend} of {@link #backends()}, one communicator of one rank each.
 */
class CallArgumentsTest {
    /** The buffer every bad call is given: 16 x FLOAT32, 64 bytes. */
    private static final long COUNT = 16;

    /** One rank's communicator of a backend under test, with a stream; closing it closes what it made. */
    interface Backend extends AutoCloseable {
        Communicator comm();

        @Override
        void close();
    }

    /** The backends the table runs against, each a factory of fresh one-rank communicators. */
    static List<Named<Supplier<Backend>>> backends() {
        return List.of(Named.of("sim", SimRank::new), Named.of("nccl (scripted, no GPU)", ScriptedDeviceRank::new));
    }

    /** The device backend's {@code DeviceCommunicator} over a scripted library: its checks run before any native call. */
    private static final class ScriptedDeviceRank implements Backend {
        private final Communicator comm = ScriptedDevice.oneRank();

        @Override
        public Communicator comm() {
            return comm;
        }

        @Override
        public void close() {
            comm.close();
        }
    }

    private static final class SimRank implements Backend {
        private final SimCluster cluster = SimBackend.cluster().ranks(1).build();

        @Override
        public Communicator comm() {
            return cluster.communicator(0);
        }

        @Override
        public void close() {
            cluster.close();
        }
    }

    /** What a bad call is given: the communicator, a stream, and buffers it closes afterwards. */
    static final class Call {
        private final Communicator comm;
        private final Stream stream;
        private final List<DeviceBuffer> made = new ArrayList<>();

        Call(Communicator comm) {
            this.comm = comm;
            this.stream = comm.createStream();
        }

        Communicator comm() {
            return comm;
        }

        Stream stream() {
            return stream;
        }

        /** {@link #COUNT} x FLOAT32 of MEM_ALLOC memory. */
        DeviceBuffer floats() {
            return made(comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT));
        }

        DeviceBuffer made(DeviceBuffer buffer) {
            made.add(buffer);
            return buffer;
        }

        void closeBuffers() {
            made.forEach(DeviceBuffer::close);
        }
    }

    @FunctionalInterface
    interface BadCall {
        void run(Call call);
    }

    /** A bad call and how every backend refuses it: its rule (or INVALID_USAGE, with no rule) and words. */
    record Refusal(String name, Rule rule, BadCall call, String... words) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final List<Refusal> BAD_CALLS = List.of(
            new Refusal(
                    "a negative count",
                    Rule.R13_TYPES,
                    c -> c.comm().allReduce(c.floats(), c.floats(), -1, DataType.FLOAT32, ReduceOp.SUM, c.stream()),
                    "allReduce: count -1 is negative"),
            new Refusal(
                    "a negative count of a send",
                    Rule.R13_TYPES,
                    c -> c.comm().send(c.floats(), -4, DataType.FLOAT32, 0, c.stream()),
                    "send: count -4 is negative"),
            new Refusal(
                    "a negative count to allocate",
                    Rule.R13_TYPES,
                    c -> c.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, -1),
                    "allocate: count -1 is negative"),
            new Refusal(
                    "a count whose bytes overflow",
                    Rule.R13_TYPES,
                    c -> c.comm()
                            .allReduce(
                                    c.floats(),
                                    c.floats(),
                                    Long.MAX_VALUE / 2,
                                    DataType.FLOAT32,
                                    ReduceOp.SUM,
                                    c.stream()),
                    "allReduce: " + Long.MAX_VALUE / 2 + " x FLOAT32 overflows a long byte size"),
            new Refusal(
                    "a count whose bytes overflow, of an op that reaches count x ranks",
                    Rule.R13_TYPES,
                    c -> c.comm().allGather(c.floats(), c.floats(), Long.MAX_VALUE / 2, DataType.FLOAT32, c.stream()),
                    "allGather: " + Long.MAX_VALUE / 2 + " x FLOAT32 overflows a long byte size"),
            new Refusal(
                    "a count past the buffer",
                    null,
                    c -> c.comm()
                            .allReduce(c.floats(), c.floats(), COUNT + 1, DataType.FLOAT32, ReduceOp.SUM, c.stream()),
                    "allReduce: the send buffer ",
                    "holds 64 bytes, but" + " 17 x FLOAT32 need 68"),
            new Refusal(
                    "a count past the buffer from an offset",
                    null,
                    c -> c.comm()
                            .allReduce(c.floats(), 0, c.floats(), 4, COUNT, DataType.FLOAT32, ReduceOp.SUM, c.stream()),
                    "allReduce: the recv buffer ",
                    "holds 48 bytes from element 4, but 16 x FLOAT32 need 64"),
            new Refusal(
                    "an offset outside the buffer",
                    null,
                    c -> c.comm()
                            .allReduce(
                                    c.floats(),
                                    COUNT + 1,
                                    c.floats(),
                                    0,
                                    1,
                                    DataType.FLOAT32,
                                    ReduceOp.SUM,
                                    c.stream()),
                    "allReduce: the send offset 17 x FLOAT32 lies outside the send buffer "),
            new Refusal(
                    "a reduce op the type does not suit",
                    Rule.R13_TYPES,
                    c -> c.comm().allReduce(c.floats(), c.floats(), COUNT, DataType.INT32, ReduceOp.AVG, c.stream()),
                    "allReduce uses ReduceOp.AVG on INT32; AVG divides"),
            new Refusal(
                    "a root out of range",
                    null,
                    c -> c.comm().broadcast(c.floats(), c.floats(), COUNT, DataType.FLOAT32, 1, c.stream()),
                    "broadcast: root 1 is not a rank of this communicator of 1" + " ranks"),
            new Refusal(
                    "a peer out of range",
                    null,
                    c -> c.comm().recv(c.floats(), COUNT, DataType.FLOAT32, -1, c.stream()),
                    "recv: peer -1 is not a rank of this communicator of 1 ranks"),
            new Refusal(
                    "a null buffer",
                    null,
                    c -> c.comm().allReduce(null, c.floats(), COUNT, DataType.FLOAT32, ReduceOp.SUM, c.stream()),
                    "allReduce: the send buffer is null"),
            new Refusal(
                    "freed memory",
                    null,
                    c -> {
                        DeviceBuffer freed = c.floats();
                        freed.close();
                        c.comm().allReduce(freed, freed, COUNT, DataType.FLOAT32, ReduceOp.SUM, c.stream());
                    },
                    "allReduce: ",
                    "was already freed"),
            new Refusal(
                    "memory of no device of this rank",
                    null,
                    c -> {
                        DeviceBuffer foreign = DeviceBuffer.root(new ElsewhereMemory(), DataType.FLOAT32, COUNT);
                        c.comm().allReduce(foreign, foreign, COUNT, DataType.FLOAT32, ReduceOp.SUM, c.stream());
                    },
                    "allReduce: ",
                    "is not memory of rank 0's"),
            new Refusal(
                    "registering freed memory",
                    null,
                    c -> {
                        DeviceBuffer freed = c.floats();
                        freed.close();
                        c.comm().register(freed);
                    },
                    "register: ",
                    "was already freed"),
            new Refusal(
                    "a window off the alignment",
                    Rule.R12_WINDOW,
                    c -> c.comm()
                            .registerWindow(
                                    c.made(c.comm()
                                                    .allocate(
                                                            Allocator.MEM_ALLOC,
                                                            DataType.UINT8,
                                                            2 * Rule.WINDOW_ALIGNMENT))
                                            .slice(100, Rule.WINDOW_ALIGNMENT),
                                    false),
                    "a window's head must be aligned to 4096 bytes: "),
            new Refusal(
                    "a window on legacy memory",
                    Rule.R12_WINDOW,
                    c -> c.comm()
                            .registerWindow(
                                    c.made(c.comm().allocate(Allocator.LEGACY, DataType.UINT8, Rule.WINDOW_ALIGNMENT)),
                                    false),
                    "window registration needs VMM or ",
                    "MemAlloc memory, not legacy memory: "));

    static List<Arguments> badCallsOnEveryBackend() {
        List<Arguments> all = new ArrayList<>();
        for (Named<Supplier<Backend>> backend : backends()) {
            for (Refusal refusal : BAD_CALLS) {
                all.add(Arguments.of(refusal, backend));
            }
        }
        return all;
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("badCallsOnEveryBackend")
    void everyBackendRefusesTheBadCallAlike(Refusal refusal, Supplier<Backend> backends) {
        try (Backend backend = backends.get()) {
            Call call = new Call(backend.comm());
            try {
                CollectivesException e = assertThrows(
                        CollectivesException.class, () -> refusal.call().run(call));
                String message = e.getMessage();
                assertEquals(refusal.rule(), e.rule(), message);
                assertEquals(0, e.rank(), message);
                if (refusal.rule() != null) {
                    assertTrue(message.startsWith(refusal.rule().tag() + " rank 0: "), message);
                    assertTrue(message.endsWith(" (see " + refusal.rule().anchor() + ")"), message);
                } else {
                    assertEquals(Result.INVALID_USAGE, e.result(), message);
                    assertTrue(message.startsWith("rank 0: "), message);
                }
                for (String words : refusal.words()) {
                    assertTrue(message.contains(words), () -> "'" + words + "' not in: " + message);
                }
            } finally {
                call.closeBuffers();
            }
        }
    }

    @ParameterizedTest(name = "on {0}")
    @MethodSource("backends")
    void allocatingNoElementsGivesAnEmptyBuffer(Supplier<Backend> backends) {
        try (Backend backend = backends.get();
                DeviceBuffer empty = backend.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 0)) {
            assertEquals(0, empty.count());
            assertEquals(0, empty.sizeBytes());
        }
    }

    /** Memory that no backend made: at a made-up address, never freed. */
    private static final class ElsewhereMemory extends DeviceMemory {
        ElsewhereMemory() {
            super(
                    1L << 40,
                    COUNT * DataType.FLOAT32.size(),
                    Allocator.MEM_ALLOC,
                    COUNT * DataType.FLOAT32.size(),
                    COUNT * DataType.FLOAT32.size(),
                    Set.<HandleType>of());
        }

        @Override
        public void copyIn(long offset, ByteBuffer src) {
            throw new UnsupportedOperationException("memory of no device");
        }

        @Override
        public void copyOut(long offset, ByteBuffer dst) {
            throw new UnsupportedOperationException("memory of no device");
        }

        @Override
        protected void free() {}
    }
}
