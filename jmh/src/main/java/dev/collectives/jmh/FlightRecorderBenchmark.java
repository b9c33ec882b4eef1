package dev.collectives.jmh;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.backend.device.ScriptedDevice;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.Lineage;
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
 * What the flight recorder costs per entry, alone: an op as the backends record it, and a graph's launch. With
 * {@code entries} 0 the recorder is off (it only numbers the calls); 2000 is the default ring.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FlightRecorderBenchmark {
    @Param({"0", "2000"})
    public String entries;

    private Communicator owner;
    private Stream stream;
    private FlightRecorder recorder;
    private long address;

    @Setup
    public void open() {
        System.setProperty(FlightRecorder.ENTRIES_PROPERTY, entries);
        owner = ScriptedDevice.oneRank();
        stream = owner.createStream();
        recorder = FlightRecorder.open(owner, 0, 1, "jmh", Lineage.newJob());
        address = 0x7f00_0000_0000L;
    }

    @TearDown
    public void close() {
        recorder.closed();
        stream.close();
        owner.close();
    }

    /** One op's entry, as a backend records a call it issues on a stream. */
    @Benchmark
    public long op() {
        return recorder.enqueued(
                OpKind.ALL_REDUCE, address, 0, address + 4096, 0, 1024, DataType.FLOAT32, -1, stream, false, null);
    }

    /** One graph launch's entry. */
    @Benchmark
    public long graphLaunch() {
        return recorder.graphLaunched(stream);
    }
}
