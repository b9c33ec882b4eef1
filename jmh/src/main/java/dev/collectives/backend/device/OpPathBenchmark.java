package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The device backend's Java call path over a library that does nothing: an allreduce and a graph launch as a user
 * calls them, beside the library call they end in ({@code libraryCall}, the same Java no-op) and one real JNI
 * crossing into the shim ({@code jniCrossing}). The Java path's own cost is {@code allReduce} (or
 * {@code graphLaunch}) less {@code libraryCall}; on a GPU the JNI crossing and the library's own work come on top.
 * With {@code entries} 0 the flight recorder is off; 2000 is its default ring.
 *
 * <p>With {@code libraryKiB} above 0 the library's call reads that much memory, a cache line at a time, as NCCL's
 * enqueue works through its own state for about 4.6 µs per call: the Java path's objects and the recorder's ring
 * are then no longer in the core's caches at the next call, as on a GPU, where every line the path touches costs a
 * fetch. A tight loop over a no-op keeps them all in the first-level cache, which hides that cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OpPathBenchmark {
    private static final int COUNT = 1024;

    @Param({"0", "2000"})
    public String entries;

    /** How much memory the library's call reads, in KiB: 0, or more than this core's second-level cache. */
    @Param({"0", "2048"})
    public int libraryKiB;

    private Silent library;
    private Communicator comm;
    private Stream stream;
    private DeviceBuffer send;
    private DeviceBuffer recv;
    private Graph graph;
    private GraphExec exec;

    /**
     * The scripted library, answering every op and graph launch with success and recording none, after reading its
     * {@code work}: a line of each 64 bytes.
     */
    static final class Silent extends ScriptedNativeApi {
        private static final int LONGS_PER_LINE = 8;
        private final long[] work;
        /** What the reads summed, kept so that they are not optimized away. */
        long sum;

        Silent(int workKiB) {
            this.work = new long[workKiB * 1024 / Long.BYTES];
        }

        @Override
        public int collective(
                long lib, int kind, long send, long recv, long count, int type, int op, int peer, long comm, long s) {
            return work();
        }

        @Override
        public int graphLaunch(long lib, long exec, long s) {
            return work();
        }

        private int work() {
            long total = 0;
            for (int i = 0; i < work.length; i += LONGS_PER_LINE) {
                total += work[i];
            }
            sum += total;
            return 0;
        }
    }

    @Setup
    public void open() {
        System.setProperty(FlightRecorder.ENTRIES_PROPERTY, entries);
        NativeShimApi.INSTANCE.load();
        library = new Silent(libraryKiB);
        comm = library.communicator(0, 1);
        stream = comm.createStream();
        send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
        recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, COUNT);
        stream.beginCapture();
        allReduce();
        graph = stream.endCapture();
        exec = graph.instantiate();
    }

    @TearDown
    public void close() {
        exec.close();
        graph.close();
        send.close();
        recv.close();
        stream.close();
        comm.close();
    }

    /** {@code comm.allReduce}: checks, the flight recorder's entry, the lock against an abort, the library call. */
    @Benchmark
    public void allReduce() {
        comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, stream);
    }

    /** A GRAPH step's launch as the backend makes it, with its flight recorder entry. */
    @Benchmark
    public void graphLaunch() {
        exec.launch(stream);
    }

    /** The library call the op ends in, on the same library: what {@link #allReduce} costs beyond its own path. */
    @Benchmark
    public int libraryCall() {
        return library.collective(
                0,
                OpKind.ALL_REDUCE.ordinal(),
                send.address(),
                recv.address(),
                COUNT,
                DataType.FLOAT32.code(),
                ReduceOp.SUM.code(),
                -1,
                0,
                0);
    }

    /** One call from Java into the shim and back: what a JNI crossing costs on this machine. */
    @Benchmark
    public int jniCrossing() {
        return NativeShimApi.INSTANCE.slotCount();
    }
}
