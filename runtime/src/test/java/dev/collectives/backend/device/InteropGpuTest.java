package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.Event;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memory and streams a framework owns, on one GPU (one rank): each allocation route wrapped and classified by the
 * driver, what registration then accepts or refuses, a graph on a wrapped stream, and events.
 */
@Tag("gpu")
class InteropGpuTest {
    private static final long BYTES = 4096;
    private LocalCluster cluster;

    @BeforeEach
    void start() {
        cluster = GpuFixture.backend().local(1);
        cluster.run(GpuFixture::warmUp);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private void onRank(DeviceBody body) {
        cluster.run(ctx -> body.run((DeviceCommunicator) ctx.comm(), ctx.stream()));
    }

    private interface DeviceBody {
        void run(DeviceCommunicator comm, Stream stream) throws Exception;
    }

    private static long allocate(DeviceCommunicator comm, String call, int rc, long[] out) {
        comm.library().checkRuntime(rc, comm.rank(), call);
        return out[0];
    }

    @Test
    void cudaMallocMemoryIsLegacyAndRegisteringItNeedsTheVariable() {
        onRank((comm, stream) -> {
            NativeLibrary n = comm.library();
            long[] out = new long[1];
            long address = allocate(comm, "Malloc", n.api.runtimeMalloc(n.lib, comm.device(), BYTES, out), out);
            try {
                DeviceBuffer buffer = comm.wrap(address + 1024, 1024, DataType.FLOAT32);
                assertEquals("foreign, legacy cudaMalloc", buffer.memory().origin());
                assertEquals(Allocator.LEGACY, buffer.allocator());
                assertEquals(1024, buffer.headOffset());
                assertTrue(buffer.memory().size() >= BYTES, buffer.toString());
                if (!"1".equals(System.getenv("NCCL_LEGACY_CUDA_REGISTER"))) {
                    CollectivesException e = assertThrows(CollectivesException.class, () -> comm.register(buffer));
                    assertEquals(Rule.R9_LEGACY, e.rule(), e.getMessage());
                }
                CollectivesException past = assertThrows(
                        CollectivesException.class, () -> comm.wrap(address + 2048, 2 * BYTES, DataType.UINT8));
                assertEquals(Rule.R7_ARENA, past.rule(), past.getMessage());
                buffer.close();
                buffer.copyFromHost(new float[] {1, 2, 3}); // close() freed nothing
            } finally {
                n.checkRuntime(n.api.runtimeFree(n.lib, comm.device(), address), comm.rank(), "Free");
            }
        });
    }

    @Test
    void cuMemCreateWithPosixFdRegistersAndWithoutHandlesIsRefused() {
        onRank((comm, stream) -> {
            long g = comm.granularity();
            boolean fabric = comm.capabilities().fabricHandles();
            try (DeviceMemory posix = comm.virtualMemory().map(g, g, g, Set.of(HandleType.POSIX_FILE_DESCRIPTOR));
                    DeviceMemory bare = comm.virtualMemory().map(g, g, g, Set.of())) {
                DeviceBuffer shareable = comm.wrap(posix.address() + 4096, BYTES, DataType.UINT8);
                assertEquals("foreign, VMM with POSIX fd", shareable.memory().origin());
                assertEquals(Allocator.VMM, shareable.allocator());
                assertEquals(4096, shareable.headOffset());
                assertEquals(g, shareable.memory().size());
                if (fabric) {
                    assertEquals(
                            Rule.R11_ALLOCATOR,
                            assertThrows(CollectivesException.class, () -> comm.register(shareable))
                                    .rule());
                } else {
                    comm.register(shareable).close();
                }
                DeviceBuffer unshareable = comm.wrap(bare.address(), BYTES, DataType.UINT8);
                assertEquals(
                        "foreign, VMM without shareable handles",
                        unshareable.memory().origin());
                CollectivesException e = assertThrows(CollectivesException.class, () -> comm.register(unshareable));
                assertEquals(Rule.R11_ALLOCATOR, e.rule(), e.getMessage());
            }
        });
    }

    @Test
    void ncclMemAllocMemoryIsQualifiedVmmAndCollectivesRunOnIt() {
        onRank((comm, stream) -> {
            try (DeviceBuffer owned = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024)) {
                DeviceBuffer wrapped = comm.wrap(owned.address(), 4096, DataType.FLOAT32);
                assertTrue(
                        wrapped.memory().origin().startsWith("foreign, VMM with POSIX fd"),
                        wrapped.memory().origin());
                assertEquals(0, wrapped.headOffset());
                wrapped.copyFromHost(new float[] {1, 2, 3, 4});
                try (RegistrationHandle handle = comm.register(wrapped)) {
                    comm.allReduce(wrapped.slice(0, 4), wrapped.slice(4, 4), 4, DataType.FLOAT32, ReduceOp.SUM, stream);
                    stream.record().whenDone().get(60, TimeUnit.SECONDS);
                }
                float[] back = new float[8];
                wrapped.copyToHost(back);
                assertArrayEquals(new float[] {1, 2, 3, 4, 1, 2, 3, 4}, back);
            }
        });
    }

    @Test
    void pinnedHostManagedAndPageableMemoryAreRefusedNamingWhatTheyAre() {
        onRank((comm, stream) -> {
            NativeLibrary n = comm.library();
            long[] out = new long[1];
            long pinned = allocate(comm, "MallocHost", n.api.runtimeMallocHost(n.lib, comm.device(), BYTES, out), out);
            long managed =
                    allocate(comm, "MallocManaged", n.api.runtimeMallocManaged(n.lib, comm.device(), BYTES, out), out);
            Pointer pageable = Pointer.malloc(BYTES);
            try {
                assertRefused(comm, pinned, "pinned host memory");
                assertRefused(comm, managed, "managed memory");
                assertRefused(comm, pageable.address(), "memory only");
            } finally {
                Pointer.free(pageable);
                n.checkRuntime(n.api.runtimeFree(n.lib, comm.device(), managed), comm.rank(), "Free");
                n.checkRuntime(n.api.runtimeFreeHost(n.lib, pinned), comm.rank(), "FreeHost");
            }
        });
    }

    private static void assertRefused(DeviceCommunicator comm, long address, String what) {
        CollectivesException e =
                assertThrows(CollectivesException.class, () -> comm.wrap(address, 256, DataType.UINT8));
        assertNull(e.rule(), e.getMessage());
        assertTrue(
                e.getMessage().contains(what) && e.getMessage().contains("collectives take device memory only"),
                e.getMessage());
        System.out.println("refused as expected: " + e.getMessage());
    }

    @Test
    void aGraphCapturedOnAWrappedStreamRunsAndClosingTheWrapperDestroysNothing() {
        onRank((comm, stream) -> {
            NativeLibrary n = comm.library();
            long[] out = new long[1];
            n.checkRuntime(n.api.streamCreate(n.lib, comm.device(), out), comm.rank(), "StreamCreateWithFlags");
            long framework = out[0];
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 8)) {
                Stream wrapped = comm.wrapStream(framework);
                assertEquals(framework, wrapped.handle());
                buffer.copyFromHost(new float[] {1, 2, 3, 4, 0, 0, 0, 0});
                wrapped.beginCapture();
                comm.allReduce(buffer.slice(0, 4), buffer.slice(4, 4), 4, DataType.FLOAT32, ReduceOp.SUM, wrapped);
                try (Graph graph = wrapped.endCapture();
                        GraphExec exec = graph.instantiate()) {
                    exec.launch(wrapped);
                    Event done = wrapped.record();
                    done.whenDone().get(60, TimeUnit.SECONDS);
                    assertTrue(done.isDone());
                }
                float[] back = new float[8];
                buffer.copyToHost(back);
                assertArrayEquals(new float[] {1, 2, 3, 4, 1, 2, 3, 4}, back);
                wrapped.close();
                assertEquals(0, n.api.streamQuery(n.lib, framework), "the framework's stream is still alive");
            } finally {
                n.checkRuntime(n.api.streamDestroy(n.lib, framework), comm.rank(), "StreamDestroy");
            }
        });
    }

    @Test
    void waitForOrdersAStreamAfterAnotherAndAwaitAndWhenDoneComplete() {
        onRank((comm, stream) -> {
            try (Stream other = comm.createStream();
                    DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1 << 20)) {
                for (int i = 0; i < 20; i++) {
                    comm.allReduce(buffer, buffer, 1 << 20, DataType.FLOAT32, ReduceOp.SUM, stream);
                }
                Event first = stream.record();
                other.waitFor(first);
                comm.allReduce(buffer, buffer, 1 << 20, DataType.FLOAT32, ReduceOp.SUM, other);
                Event second = other.record();
                second.await(Duration.ofSeconds(60));
                assertTrue(first.isDone(), "the second stream ran after the first");
                CompletableFuture<Void> again = stream.record().whenDone();
                again.get(60, TimeUnit.SECONDS);
            }
        });
    }

    @Test
    void anEventsFutureFailsAfterAnAbort() {
        onRank((comm, stream) -> {
            Event event = stream.record();
            comm.abort();
            ExecutionException e = assertThrows(
                    ExecutionException.class, () -> event.whenDone().get(60, TimeUnit.SECONDS));
            CollectivesException cause = assertInstanceOf(CollectivesException.class, e.getCause());
            assertTrue(cause.getMessage().contains("aborted"), cause.getMessage());
            event.close();
        });
    }
}
