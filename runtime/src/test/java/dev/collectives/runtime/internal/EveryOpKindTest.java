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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every op of the catalogue, at offsets, through {@link Communicator#call} on sim and on the device backend (over
 * a scripted library), on every rank of 2: both accept it and their flight recorders record it alike, named as the
 * catalogue names it, with the buffers as passed and the offsets.
 */
class EveryOpKindTest {
    private static final int RANKS = 2;
    private static final long COUNT = 4;
    private static final long SEND_OFFSET = 1;
    private static final long RECV_OFFSET = 2;
    private static final DataType F32 = DataType.FLOAT32;

    @ParameterizedTest
    @EnumSource(OpKind.class)
    void everyBackendIssuesAndRecordsTheOpAlike(OpKind kind) {
        Map<Integer, String> sim = new ConcurrentHashMap<>();
        try (SimCluster cluster = SimBackend.cluster().ranks(RANKS).build()) {
            cluster.run(ctx -> sim.put(ctx.rank(), issueAndRecord(kind, ctx.comm(), ctx.stream())));
        }
        for (int rank = 0; rank < RANKS; rank++) {
            Communicator comm = ScriptedDevice.rank(rank, RANKS);
            try (Stream stream = comm.createStream()) {
                assertEquals(sim.get(rank), issueAndRecord(kind, comm, stream), kind + " on rank " + rank);
            } finally {
                comm.close();
            }
        }
        String sends = kind.hasSend() ? "send at 1" : "no send";
        String recvs = kind.hasRecv() ? "recv at 2" : "no recv";
        assertEquals(
                kind.method() + " " + sends + " " + recvs + " count 4",
                sim.get(1).replaceAll(" (root|peer).*", ""));
    }

    /**
     * Rank {@code comm.rank()}'s op of {@code kind} (root 1; a send or receive paired with its peer's in a group),
     * and what the flight recorder says of it.
     */
    private static String issueAndRecord(OpKind kind, Communicator comm, Stream stream) {
        int rank = comm.rank();
        int peer = kind.isPointToPoint() ? 1 - rank : 1;
        // room for the op's sides, and for the partner of a send or receive
        long sendCount = Math.max(COUNT, kind.sendExtent().elements(COUNT, RANKS));
        long recvCount = Math.max(COUNT, kind.recvExtent().elements(COUNT, RANKS));
        try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, SEND_OFFSET + sendCount + 1);
                DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, RECV_OFFSET + recvCount + 1)) {
            if (kind.isPointToPoint()) {
                // a send meets its peer's receive: both ranks issue one of each, kind's first
                OpKind partner = kind == OpKind.SEND ? OpKind.RECV : OpKind.SEND;
                comm.groupStart();
                comm.call(kind, send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, F32, null, peer, stream);
                comm.call(partner, send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, F32, null, peer, stream);
                comm.groupEnd();
            } else {
                comm.call(kind, send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, F32, ReduceOp.SUM, peer, stream);
            }
            stream.synchronize();
            List<Entry> entries = comm.flightRecord().entries();
            Entry entry = entries.get(kind.isPointToPoint() ? entries.size() - 2 : entries.size() - 1);
            return entry.call() + (entry.send() == send.address() ? " send at " + entry.sendOffset() : " no send")
                    + (entry.recv() == recv.address() ? " recv at " + entry.recvOffset() : " no recv") + " count "
                    + entry.count() + (kind.hasRoot() ? " root " : " peer ") + entry.peer();
        }
    }
}
