package dev.collectives.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.Capture;
import dev.collectives.runtime.internal.Lifecycle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Phaser;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flight recorder on sim: what an entry holds, its states, the ring's bound and the dump. */
class FlightRecorderTest {
    private static final DataType F32 = DataType.FLOAT32;

    @TempDir
    Path dumps;

    @Test
    void eachCallIsNumberedWithItsArgumentsEnqueuedUntilItsStreamSynchronizes() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                    comm.allReduce(send, 2, recv, 4, 4, F32, ReduceOp.SUM, ctx.stream());
                    comm.broadcast(send, recv, 8, F32, 1, ctx.stream());
                    List<Entry> pending = comm.flightRecord().entries();
                    assertEquals(List.of(State.ENQUEUED, State.ENQUEUED), states(pending));
                    FlightRecorder recorder = FlightRecorder.of(comm).orElseThrow();
                    assertEquals(List.of(2L, 0L, "allReduce"), place(recorder.progress()));
                    ctx.stream().synchronize();
                    assertEquals(List.of(2L, 2L, ""), place(recorder.progress()));

                    FlightRecord record = comm.flightRecord();
                    assertEquals(List.of(State.COMPLETED, State.COMPLETED), states(record.entries()));
                    Entry allReduce = record.entries().get(0);
                    assertEquals(1, allReduce.seq());
                    assertEquals("allReduce(4 x FLOAT32)", allReduce.signature());
                    assertEquals(send.address(), allReduce.send());
                    assertEquals(2, allReduce.sendOffset());
                    assertEquals(recv.address(), allReduce.recv());
                    assertEquals(4, allReduce.recvOffset());
                    // a broadcast's send is the root's alone: other ranks record none
                    assertEquals(
                            ctx.rank() == 1 ? send.address() : 0,
                            record.entries().get(1).send());
                    assertEquals(-1, allReduce.op());
                    assertEquals("unregistered", allReduce.registration());
                    assertEquals(
                            "#2 broadcast(8 x FLOAT32, peer/root 1)",
                            record.entries().get(1).toString());
                    assertTrue(allReduce.completedMicros() >= allReduce.enqueuedMicros(), allReduce.toString());
                    assertEquals(ctx.rank(), record.rank());
                    assertEquals(2, record.size());
                    assertEquals("sim", record.backend());
                    assertEquals(FlightRecorder.DEFAULT_ENTRIES, record.capacity());
                }
            });
        }
    }

    @Test
    void aStepsCallsCarryItsPipelineAndStepAndAGraphStepIsOneEntryWithItsCallsInside() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        Graph graph = Capture.capture(comm, stream, "p.Replayed", "step", () -> {
                            comm.allReduce(a, b, 8, F32, ReduceOp.SUM, stream);
                            comm.allGather(a, b, 4, F32, stream);
                        });
                        GraphExec exec = graph.instantiate()) {
                    Lifecycle.requireOpen(comm, "p.Local", false, "step");
                    comm.allReduce(a, b, 8, F32, ReduceOp.SUM, stream);
                    comm.allReduce(a, b, 4, F32, ReduceOp.SUM, stream);
                    Lifecycle.stepDone(comm, stream);
                    comm.allReduce(a, b, 2, F32, ReduceOp.SUM, stream);
                    Lifecycle.requireOpenForReplay(comm, "p.Replayed", false, "step");
                    exec.launch(stream);
                    Lifecycle.stepDone(comm, stream);
                    stream.synchronize();

                    assertEquals(
                            List.of(
                                    "#1 allReduce(8 x FLOAT32) in p.Local.step() op 0",
                                    "#2 allReduce(4 x FLOAT32) in p.Local.step() op 1",
                                    "#3 allReduce(2 x FLOAT32)",
                                    "#4 graph [allReduce(8 x FLOAT32), allGather(4 x FLOAT32)] in p.Replayed.step()"),
                            texts(comm.flightRecord().entries()));
                    assertEquals("graph", comm.flightRecord().entries().get(3).registration());
                }
            });
        }
    }

    /** What a rank's heartbeat says of a communicator: its last enqueued, its last completed, the call it waits in. */
    private static List<Object> place(dev.collectives.runtime.bootstrap.Progress.Place place) {
        return List.of(place.enqueued(), place.completed(), place.waitingIn());
    }

    @Test
    void progressPastTheRingSaysItsOldestEntryIsTheOneWaitedIn() {
        withProperty(FlightRecorder.ENTRIES_PROPERTY, "3", () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
                Communicator comm = cluster.communicator(0);
                try (Stream stream = comm.createStream();
                        DeviceBuffer data = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                    comm.broadcast(data, data, 8, F32, 0, stream);
                    for (int i = 0; i < 4; i++) {
                        comm.allReduce(data, data, 8, F32, ReduceOp.SUM, stream);
                    }
                    // 5 pending in a ring of 3: entries 1 and 2 are gone, so #3 is the first known to wait
                    assertEquals(
                            List.of(5L, 2L, "allReduce"),
                            place(FlightRecorder.of(comm).orElseThrow().progress()));
                    // the beats name the communicator as trace does, by how it came to be: the same on each rank
                    assertEquals(
                            comm.flightRecord().communicator(),
                            FlightRecorder.of(comm).orElseThrow().progress().communicator());
                    assertEquals("formed", comm.flightRecord().communicator());
                    stream.synchronize();
                }
            }
            return null;
        });
    }

    @Test
    void theRingKeepsTheLastEntriesAndCountsAll() {
        FlightRecord record = withProperty(FlightRecorder.ENTRIES_PROPERTY, "3", () -> allReducesOfOneRank(5));
        assertEquals(3, record.capacity());
        assertEquals(5, record.recorded());
        assertEquals(
                List.of("#3 allReduce(3 x FLOAT32)", "#4 allReduce(4 x FLOAT32)", "#5 allReduce(5 x FLOAT32)"),
                texts(record.entries()));
        assertEquals(
                "last enqueued #5 allReduce(5 x FLOAT32) (completed), last completed #5 allReduce(5 x FLOAT32)",
                record.position());
    }

    @Test
    void threadsRecordingAtOnceEachGetTheirOwnNumberAndTheRingHoldsTheLastEntriesWhole() {
        int perThread = 5000;
        FlightRecord record = withProperty(FlightRecorder.ENTRIES_PROPERTY, "100", () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
                Communicator comm = cluster.communicator(0);
                FlightRecorder recorder = FlightRecorder.of(comm).orElseThrow();
                Phaser start = new Phaser(2); // both threads start recording together
                ExecutorService threads = Executors.newFixedThreadPool(2);
                try {
                    List<CompletableFuture<List<Long>>> numbers = new ArrayList<>();
                    for (int t = 0; t < 2; t++) {
                        long count = t + 1; // each thread's entries say which thread made them
                        numbers.add(CompletableFuture.supplyAsync(
                                () -> {
                                    start.arriveAndAwaitAdvance();
                                    List<Long> seqs = new ArrayList<>();
                                    for (int i = 0; i < perThread; i++) {
                                        seqs.add(recorder.enqueued(
                                                OpKind.ALL_REDUCE,
                                                count,
                                                0,
                                                count,
                                                0,
                                                count,
                                                F32,
                                                -1,
                                                null,
                                                false,
                                                null));
                                    }
                                    return seqs;
                                },
                                threads));
                    }
                    Set<Long> distinct = new HashSet<>();
                    for (CompletableFuture<List<Long>> each : numbers) {
                        distinct.addAll(each.join());
                    }
                    assertEquals(2 * perThread, distinct.size(), "every entry has a number of its own");
                } finally {
                    threads.shutdown();
                }
                return recorder.snapshot();
            }
        });
        assertEquals(2 * perThread, record.recorded());
        assertEquals(100, record.entries().size());
        for (Entry entry : record.entries()) {
            assertTrue(entry.send() == entry.count() && entry.recv() == entry.count(), entry.toString());
        }
    }

    @Test
    void zeroEntriesTurnsItOff() {
        FlightRecord record = withProperty(FlightRecorder.ENTRIES_PROPERTY, "0", () -> allReducesOfOneRank(1));
        assertEquals(0, record.capacity());
        assertEquals(List.of(), record.entries());
        assertEquals("nothing enqueued", record.position());
    }

    @Test
    void whatWasPendingAtAnAbortIsNotKnownAndTheRankDumpsItsRing() throws IOException {
        FlightRecord record = withProperty(FlightRecorder.DIR_PROPERTY, dumps.toString(), () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
                Communicator comm = cluster.communicator(0);
                try (Stream stream = comm.createStream();
                        DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                    comm.allReduce(a, a, 8, F32, ReduceOp.SUM, stream);
                    comm.abort();
                    return comm.flightRecord();
                }
            }
        });
        assertEquals(List.of(State.UNKNOWN), states(record.entries()));
        String dump = rankZerosDump();
        assertTrue(
                dump.startsWith("{\"format\": \"collectives-flight-record\", \"version\": 3, \"reason\": \"abort\""),
                dump);
        assertTrue(dump.contains("\"call\": \"allReduce\""), dump);
        assertTrue(dump.contains("\"state\": \"unknown\""), dump);
    }

    @Test
    void aRankWhosePeerNeverCallsFailsItsCallAndDumpsItsRing() throws IOException {
        withProperty(FlightRecorder.DIR_PROPERTY, dumps.toString(), () -> {
            try (SimCluster cluster = SimBackend.cluster()
                    .ranks(2)
                    .timeout(Duration.ofMillis(300))
                    .build()) {
                cluster.run(ctx -> {
                    if (ctx.rank() == 1) {
                        return;
                    }
                    try (DeviceBuffer a = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8)) {
                        ctx.comm().allReduce(a, a, 8, F32, ReduceOp.SUM, ctx.stream());
                        assertThrows(RuntimeException.class, () -> ctx.stream().synchronize());
                        assertEquals(
                                List.of(State.FAILED),
                                states(ctx.comm().flightRecord().entries()));
                    }
                });
            }
            return null;
        });
        String dump = rankZerosDump();
        assertTrue(dump.contains("\"rank\": 0, \"size\": 2, \"backend\": \"sim\""), dump);
        assertTrue(dump.contains("\"reason\": \"failure: "), dump);
        assertTrue(dump.contains("\"state\": \"failed\""), dump);
        try (java.util.stream.Stream<Path> files = Files.list(dumps)) {
            assertEquals(2, files.count(), "rank 1 writes its ring when its communicator closes");
        }
    }

    /**
     * After an abort, the survivors' shrunk communicator and a split of it are named by their lineage in the job, alike
     * on every rank, and each writes a record of its own beside the job's communicator's: none replaces another.
     */
    @Test
    void eachCommunicatorOfAJobIsNamedByItsLineageAndWritesARecordOfItsOwn() throws IOException {
        Map<Integer, List<FlightRecord>> byRank = new ConcurrentSkipListMap<>();
        withProperty(FlightRecorder.DIR_PROPERTY, dumps.toString(), () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
                cluster.run(ctx -> {
                    if (ctx.rank() == 1) {
                        return;
                    }
                    Communicator comm = ctx.comm();
                    comm.abort();
                    try (Communicator shrunk = comm.shrink(1);
                            Communicator split = shrunk.split(0, ctx.rank()).orElseThrow()) {
                        byRank.put(
                                ctx.rank(), List.of(comm.flightRecord(), shrunk.flightRecord(), split.flightRecord()));
                    }
                });
            }
            return null;
        });
        List<FlightRecord> records =
                byRank.values().stream().flatMap(List::stream).toList();

        assertEquals(
                List.of(
                        "formed",
                        "formed > shrunk #0 without rank 1",
                        "formed > shrunk #0 without rank 1 > split #0 with color 0",
                        "formed",
                        "formed > shrunk #0 without rank 1",
                        "formed > shrunk #0 without rank 1 > split #0 with color 0"),
                records.stream().map(FlightRecord::communicator).toList());
        assertEquals(
                List.of(3, 2, 2, 3, 2, 2),
                records.stream().map(FlightRecord::size).toList());
        assertEquals(1, records.stream().map(FlightRecord::job).distinct().count(), records.toString());
        try (java.util.stream.Stream<Path> files = Files.list(dumps)) {
            assertEquals(7, files.count(), "3 records of ranks 0 and 2, and rank 1's of the job's communicator");
        }
    }

    /**
     * Asked, every open communicator writes its record at once, also one that wrote it before, and still writes it
     * again when it closes.
     */
    @Test
    void askedEveryOpenCommunicatorWritesItsRecordNow() throws IOException {
        Path asked = dumps.resolve("asked");
        Map<Integer, List<Path>> written = new ConcurrentSkipListMap<>();
        CyclicBarrier both = new CyclicBarrier(2);
        withProperty(FlightRecorder.DIR_PROPERTY, dumps.toString(), () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                cluster.run(ctx -> {
                    try (DeviceBuffer a = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8);
                            Communicator split = ctx.comm().split(0, ctx.rank()).orElseThrow()) {
                        ctx.comm().allReduce(a, a, 8, F32, ReduceOp.SUM, ctx.stream());
                        ctx.stream().synchronize();
                        both.await(); // every communicator is open until rank 0 asked
                        if (ctx.rank() == 0) {
                            written.put(0, FlightRecord.writeAll(asked));
                        }
                        both.await();
                    }
                });
            }
            return null;
        });

        List<Path> files = written.get(0);
        assertEquals(4, files.size(), "the job's communicator and its split, on each rank: " + files);
        for (Path file : files) {
            String record = Files.readString(file, StandardCharsets.UTF_8);
            assertTrue(record.contains("\"reason\": \"asked\""), record);
        }
        assertTrue(
                files.stream()
                        .anyMatch(f -> read(f).contains("\"call\": \"allReduce\"")
                                && read(f).contains("\"state\": \"completed\"")),
                files::toString);
        try (java.util.stream.Stream<Path> closed = Files.list(dumps)) {
            assertEquals(5, closed.count(), "the 4 records of the communicators when they closed, and asked/");
        }
    }

    @Test
    void theDumpEscapesTextAndListsEveryField() {
        Entry entry = new Entry(
                7,
                "p.\"Q\"",
                "step",
                List.of(3L),
                0,
                "allReduce",
                16,
                1,
                32,
                2,
                4,
                "FLOAT32",
                -1,
                "registered",
                List.of(),
                State.ENQUEUED,
                10,
                0);
        FlightRecord record = new FlightRecord(
                1, 2, "sim", "3fa2c1d0e9b7", List.of("formed", "shrunk #0 without rank 2"), 5, 7, List.of(entry));
        String json = FlightRecordJson.toJson(record, "a\nb");
        assertEquals(
                "{\"format\": \"collectives-flight-record\", \"version\": 3, \"reason\": \"a\\nb\",\n"
                        + " \"rank\": 1, \"size\": 2, \"backend\": \"sim\", \"job\": \"3fa2c1d0e9b7\", \"lineage\": "
                        + "[\"formed\", \"shrunk #0 without rank 2\"],\n \"capacity\": 5, \"recorded\": 7,\n"
                        + " \"entries\": [\n"
                        + "  {\"seq\": 7, \"pipeline\": \"p.\\\"Q\\\"\", \"step\": \"step\", \"arguments\": [3], \"op\": 0, "
                        + "\"call\": \"allReduce\", \"send\": \"0x10\", \"sendOffset\": 1, \"recv\": \"0x20\", "
                        + "\"recvOffset\": 2, \"count\": 4, \"type\": \"FLOAT32\", \"peer\": -1, \"registration\": "
                        + "\"registered\", \"graphOps\": [], \"state\": \"enqueued\", \"enqueuedMicros\": 10, "
                        + "\"completedMicros\": 0}\n]}\n",
                json);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Rank 0's dump, the one file of rank 0 in the directory. */
    private String rankZerosDump() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(dumps)) {
            List<Path> found = files.filter(
                            f -> f.getFileName().toString().matches("flight-[0-9a-f]{12}-c[0-9a-f]{10}-rank0\\.json"))
                    .collect(Collectors.toList());
            assertEquals(1, found.size(), found.toString());
            return Files.readString(found.get(0), StandardCharsets.UTF_8);
        }
    }

    /** The record of a rank alone that made {@code calls} allreduces, of 1, 2, ... elements, and synchronized. */
    private static FlightRecord allReducesOfOneRank(int calls) {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            Communicator comm = cluster.communicator(0);
            try (Stream stream = comm.createStream();
                    DeviceBuffer a = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                for (int count = 1; count <= calls; count++) {
                    comm.allReduce(a, a, count, F32, ReduceOp.SUM, stream);
                }
                stream.synchronize();
                return comm.flightRecord();
            }
        }
    }

    private static List<State> states(List<Entry> entries) {
        return entries.stream().map(Entry::state).collect(Collectors.toList());
    }

    private static List<String> texts(List<Entry> entries) {
        return entries.stream().map(Entry::toString).collect(Collectors.toList());
    }

    private static <T> T withProperty(String property, String value, Supplier<T> body) {
        System.setProperty(property, value);
        try {
            return body.get();
        } finally {
            System.clearProperty(property);
        }
    }
}
