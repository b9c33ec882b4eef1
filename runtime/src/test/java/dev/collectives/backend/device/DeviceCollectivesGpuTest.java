package dev.collectives.backend.device;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static dev.collectives.backend.device.GpuFixture.fill;
import static dev.collectives.backend.device.GpuFixture.input;
import static dev.collectives.backend.device.GpuFixture.inputs;
import static dev.collectives.backend.device.GpuFixture.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.bootstrap.TestRanks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every collective (gather and scatter as the library or the setting has them), data type and reduce op against a host reference, on two GPUs or two processes on one. */
@Tag("gpu")
@ExtendWith(GpuFixture.ProcessesOnOneGpu.class)
class DeviceCollectivesGpuTest {
    private static final int COUNT = 1000;
    private static TestRanks ranks;

    @BeforeAll
    static void start() {
        ranks = GpuFixture.ranks();
        ranks.run(GpuFixture::warmUp);
    }

    @AfterAll
    static void stop() {
        ranks.close();
    }

    @Test
    void allReduceEveryTypeAndOpMatchesTheReference() {
        ranks.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            int checked = 0;
            for (DataType type : DataType.values()) {
                for (ReduceOp op : ReduceOp.values()) {
                    if (!op.suits(type)) {
                        continue;
                    }
                    try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, type, COUNT);
                            DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, type, COUNT)) {
                        fill(send, type, inputs(ctx.rank(), COUNT));
                        comm.allReduce(send, recv, COUNT, type, op, stream);
                        stream.synchronize();
                        double[] got = read(recv, type, COUNT);
                        for (int i = 0; i < COUNT; i++) {
                            double want = GpuFixture.reduce(op, input(0, i), input(1, i));
                            assertEquals(want, got[i], 0.0, type + " " + op + " element " + i);
                        }
                        checked++;
                    }
                }
            }
            assertEquals(12 * 5 - 6, checked, "12 types x 5 ops, minus AVG on the 6 integer types");
        });
    }

    @Test
    void allGatherReduceScatterBroadcastReduceEveryType() {
        ranks.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            int r = ctx.rank();
            for (DataType type : DataType.values()) {
                try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, type, COUNT * RANKS);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, type, COUNT * RANKS)) {
                    double[] mine = inputs(r, COUNT * RANKS);
                    fill(send, type, mine);

                    comm.allGather(send, recv, COUNT, type, stream);
                    stream.synchronize();
                    double[] gathered = read(recv, type, COUNT * RANKS);
                    for (int i = 0; i < COUNT * RANKS; i++) {
                        assertEquals(input(i / COUNT, i % COUNT), gathered[i], type + " allGather " + i);
                    }

                    comm.reduceScatter(send, recv, COUNT, type, ReduceOp.SUM, stream);
                    stream.synchronize();
                    double[] scattered = read(recv, type, COUNT);
                    for (int i = 0; i < COUNT; i++) {
                        int j = r * COUNT + i;
                        assertEquals(input(0, j) + input(1, j), scattered[i], type + " reduceScatter " + i);
                    }

                    comm.broadcast(send, recv, COUNT, type, 1, stream);
                    stream.synchronize();
                    double[] broadcast = read(recv, type, COUNT);
                    for (int i = 0; i < COUNT; i++) {
                        assertEquals(input(1, i), broadcast[i], type + " broadcast " + i);
                    }

                    fill(recv, type, new double[COUNT]);
                    comm.reduce(send, recv, COUNT, type, ReduceOp.MAX, 0, stream);
                    stream.synchronize();
                    if (r == 0) {
                        double[] reduced = read(recv, type, COUNT);
                        for (int i = 0; i < COUNT; i++) {
                            assertEquals(Math.max(input(0, i), input(1, i)), reduced[i], type + " reduce " + i);
                        }
                    }
                }
            }
        });
    }

    @Test
    void allToAllAndSendRecvInAGroup() {
        ranks.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            int r = ctx.rank();
            DataType type = DataType.INT32;
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, type, COUNT * RANKS);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, type, COUNT * RANKS)) {
                int[] mine = new int[COUNT * RANKS];
                for (int i = 0; i < mine.length; i++) {
                    mine[i] = 1000 * r + i; // block j goes to rank j
                }
                send.copyFromHost(mine);
                comm.allToAll(send, recv, COUNT, type, stream);
                stream.synchronize();
                int[] got = new int[COUNT * RANKS];
                recv.copyToHost(got);
                for (int j = 0; j < RANKS; j++) {
                    for (int i = 0; i < COUNT; i++) {
                        assertEquals(1000 * j + r * COUNT + i, got[j * COUNT + i], "allToAll block " + j);
                    }
                }

                int next = (r + 1) % RANKS;
                int previous = (r + RANKS - 1) % RANKS;
                comm.groupStart();
                comm.send(send, COUNT, type, next, stream);
                comm.recv(recv, COUNT, type, previous, stream);
                comm.groupEnd();
                stream.synchronize();
                recv.copyToHost(got);
                for (int i = 0; i < COUNT; i++) {
                    assertEquals(1000 * previous + i, got[i], "ring send/recv " + i);
                }
            }
        });
    }

    @Test
    void gatherAndScatterAtOffsetsWithNoBufferOffTheRootsSide() {
        int root = RANKS - 1;
        ranks.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            int r = ctx.rank();
            DataType type = DataType.INT32;
            try (DeviceBuffer one = comm.allocate(Allocator.MEM_ALLOC, type, COUNT + 1);
                    DeviceBuffer all = comm.allocate(Allocator.MEM_ALLOC, type, COUNT * RANKS + 1)) {
                int[] mine = new int[COUNT + 1];
                for (int i = 0; i < mine.length; i++) {
                    mine[i] = 1000 * r + i;
                }
                one.copyFromHost(mine);
                // off the root, a gather's recv is not used: pass none
                comm.gather(one, 1, r == root ? all : null, 1, COUNT, type, root, stream);
                stream.synchronize();
                int[] got = new int[COUNT * RANKS + 1];
                if (r == root) {
                    all.copyToHost(got);
                    for (int q = 0; q < RANKS; q++) {
                        for (int i = 0; i < COUNT; i++) {
                            assertEquals(1000 * q + 1 + i, got[1 + q * COUNT + i], "gather block " + q);
                        }
                    }
                }
                // the root scatters what it gathered, shifted by 1 element: rank q gets rank q's send from 2 on
                comm.scatter(r == root ? all : null, 1, one, 0, COUNT, type, root, stream);
                stream.synchronize();
                int[] back = new int[COUNT + 1];
                one.copyToHost(back);
                for (int i = 0; i < COUNT; i++) {
                    assertEquals(1000 * r + 1 + i, back[i], "scatter element " + i);
                }
            }
        });
    }

    @Test
    void offsetsInOneArenaAndInPlaceAllReduce() {
        ranks.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            try (DeviceBuffer arena = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, 1 << 22)) {
                DeviceBuffer send = arena.view(0, DataType.FLOAT32, 1024);
                DeviceBuffer recv = arena.view(1 << 20, DataType.FLOAT32, 1024);
                float[] mine = new float[1024];
                for (int i = 0; i < mine.length; i++) {
                    mine[i] = ctx.rank() + i;
                }
                send.copyFromHost(mine);
                comm.allReduce(send.slice(0, 512), recv.slice(512, 512), 512, DataType.FLOAT32, ReduceOp.SUM, stream);
                comm.allReduce(send, send, 1024, DataType.FLOAT32, ReduceOp.SUM, stream);
                stream.synchronize();
                float[] got = new float[1024];
                recv.copyToHost(got);
                float[] inPlace = new float[1024];
                send.copyToHost(inPlace);
                for (int i = 0; i < 512; i++) {
                    assertEquals(1 + 2 * i, got[512 + i], "offset allReduce " + i);
                }
                for (int i = 0; i < 1024; i++) {
                    assertEquals(1 + 2 * i, inPlace[i], "in-place allReduce " + i);
                }
            }
        });
    }

    @Test
    void aGraphOfTwoAllReducesReplays() {
        ranks.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream stream = ctx.stream();
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4096);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4096)) {
                float[] ones = new float[4096];
                java.util.Arrays.fill(ones, ctx.rank() + 1);
                send.copyFromHost(ones);
                stream.beginCapture();
                assertEquals(Stream.CaptureStatus.ACTIVE, stream.captureStatus());
                comm.allReduce(send.slice(0, 1024), recv.slice(0, 1024), 1024, DataType.FLOAT32, ReduceOp.SUM, stream);
                comm.allReduce(
                        send.slice(1024, 1024), recv.slice(2048, 1024), 1024, DataType.FLOAT32, ReduceOp.MAX, stream);
                try (var graph = stream.endCapture();
                        var exec = graph.instantiate()) {
                    assertEquals(Stream.CaptureStatus.NONE, stream.captureStatus());
                    for (int replay = 0; replay < 3; replay++) {
                        exec.launch(stream);
                    }
                    stream.synchronize();
                }
                float[] got = new float[4096];
                recv.copyToHost(got);
                assertEquals(3f, got[0]);
                assertEquals(3f, got[1023]);
                assertEquals(2f, got[2048]);
                assertEquals(2f, got[3071]);
            }
        });
    }

    @Test
    void eventsTimeTheStreamsWork() {
        ranks.run(ctx -> {
            DeviceCommunicator comm = (DeviceCommunicator) ctx.comm();
            try (DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1 << 24);
                    DeviceEvent start = new DeviceEvent(comm);
                    DeviceEvent end = new DeviceEvent(comm)) {
                start.record(ctx.stream());
                comm.allReduce(b, b, 1 << 24, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                end.record(ctx.stream());
                end.synchronize();
                float ms = end.elapsedMillisSince(start);
                assertTrue(ms > 0 && Float.isFinite(ms), "the events timed the allreduce of 64 MiB as " + ms + " ms");
            }
        });
    }

    @Test
    void everyRankSeesItsOwnCommunicator() {
        ranks.run(ctx -> {
            DeviceCommunicator comm = (DeviceCommunicator) ctx.comm();
            assertEquals(GpuFixture.device(ctx), comm.device());
            int[] out = new int[1];
            NativeLibrary n = comm.library();
            long handle = comm.nativeComm().handle();
            n.check(n.api.commUserRank(n.lib, handle, out), ctx.rank(), handle, "CommUserRank");
            assertEquals(ctx.rank(), out[0]);
            n.check(n.api.commCount(n.lib, handle, out), ctx.rank(), handle, "CommCount");
            assertEquals(RANKS, out[0]);
            n.check(n.api.commDevice(n.lib, handle, out), ctx.rank(), handle, "CommDevice");
            assertEquals(GpuFixture.device(ctx), out[0]);
            assertEquals(RANKS, ctx.size());
        });
    }
}
