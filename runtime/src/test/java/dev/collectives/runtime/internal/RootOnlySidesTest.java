package dev.collectives.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.ScriptedDevice;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ops with a side only the root uses, called as NCCL allows: every rank other than the root passes null there.
 * Sim and the device backend (on a scripted library) accept them alike on every rank of 3, and record them alike;
 * sim also moves the data.
 */
class RootOnlySidesTest {
    private static final int RANKS = 3;
    private static final int ROOT = 1;
    private static final long COUNT = 4;
    private static final DataType F32 = DataType.FLOAT32;

    @ParameterizedTest
    @EnumSource(
            value = OpKind.class,
            names = {"BROADCAST", "REDUCE", "GATHER", "SCATTER"})
    void nonRootRanksMayPassNoBufferOnTheSideOnlyTheRootUses(OpKind kind) {
        Map<Integer, String> sim = new ConcurrentHashMap<>();
        Map<Integer, float[]> received = new ConcurrentHashMap<>();
        try (SimCluster cluster = SimBackend.cluster().ranks(RANKS).build()) {
            cluster.run(ctx -> {
                sim.put(ctx.rank(), callAndRecord(kind, ctx.comm(), ctx.stream(), received));
            });
        }
        for (int rank = 0; rank < RANKS; rank++) {
            Communicator comm = ScriptedDevice.rank(rank, RANKS);
            try (Stream stream = comm.createStream()) {
                assertEquals(
                        sim.get(rank), callAndRecord(kind, comm, stream, new ConcurrentHashMap<>()), "rank " + rank);
            } finally {
                comm.close();
            }
        }
        assertEquals(
                expected(kind), received.keySet().stream().sorted().toList().toString() + " " + values(received));
    }

    /**
     * Rank {@code comm.rank()}'s call of {@code kind} with root {@link #ROOT}, null on the root-only side off the
     * root; what its flight entry says of it. Its send holds rank + 1 in each element; what it received is kept.
     */
    private static String callAndRecord(OpKind kind, Communicator comm, Stream stream, Map<Integer, float[]> received) {
        int rank = comm.rank();
        long sendCount = kind.sendExtent().elements(COUNT, RANKS);
        long recvCount = kind.recvExtent().elements(COUNT, RANKS);
        boolean root = rank == ROOT;
        try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, sendCount);
                DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, recvCount)) {
            float[] values = new float[(int) sendCount];
            for (int i = 0; i < values.length; i++) {
                values[i] = rank + 1 + (kind == OpKind.SCATTER ? i / (int) COUNT * 10 : 0);
            }
            send.copyFromHost(values);
            comm.call(
                    kind,
                    kind.sendOnlyAtRoot() && !root ? null : send,
                    0,
                    kind.recvOnlyAtRoot() && !root ? null : recv,
                    0,
                    COUNT,
                    F32,
                    ReduceOp.SUM,
                    ROOT,
                    stream);
            stream.synchronize();
            if (kind.usesRecv(rank, ROOT) && comm.backendName().equals(SimBackend.NAME)) {
                float[] out = new float[(int) recvCount];
                recv.copyToHost(out);
                received.put(rank, out);
            }
            List<Entry> entries = comm.flightRecord().entries();
            Entry entry = entries.get(entries.size() - 1);
            return entry.call() + " send " + (entry.send() != 0) + " recv " + (entry.recv() != 0) + " count "
                    + entry.count() + " root " + entry.peer();
        }
    }

    private static String expected(OpKind kind) {
        return switch (kind) {
            case BROADCAST -> "[0, 1, 2] 2.0 2.0 2.0";
            case REDUCE -> "[1] 6.0";
            case GATHER -> "[1] 1.0 2.0 3.0";
            default -> "[0, 1, 2] 2.0 12.0 22.0";
        };
    }

    /** The first element of each of the received blocks of {@link #COUNT}, rank by rank. */
    private static String values(Map<Integer, float[]> received) {
        List<String> firsts = new ArrayList<>();
        received.keySet().stream().sorted().forEach(rank -> {
            float[] out = received.get(rank);
            for (int i = 0; i < out.length; i += (int) COUNT) {
                firsts.add(Float.toString(out[i]));
            }
        });
        return String.join(" ", firsts);
    }
}
