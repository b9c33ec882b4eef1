package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.spi.HostMemory;
import java.util.Arrays;
import java.util.List;

/**
 * The data movement of each collective, run by every rank's stream worker at once on the arrivals of a
 * {@link CallMeeting}: each rank does an equal share (reduces its slice, or copies its block), so that the ranks
 * work in parallel, and a final barrier keeps every buffer in use until all ranks are done with it.
 */
final class Movement {
    /** Each op's movement, by ordinal; null for point to point, which {@link PointToPoint} moves. */
    private static final Way[] WAYS =
            Arrays.stream(OpKind.values()).map(Movement::of).toArray(Way[]::new);

    private Movement() {}

    /** A collective's data movement, both ways its ranks may meet. */
    private record Way(InProcess inProcess, FromContributions fromContributions) {}

    /** Rank {@code rank}'s share of the movement, on the arrivals {@code all} of ranks in this process. */
    @FunctionalInterface
    private interface InProcess {
        void run(int rank, List<Launched> all, CallMeeting<Launched> rv);
    }

    /** Rank {@code rank}'s recv from every rank's contribution, staged at {@code sources} ({@link #fromContributions}). */
    @FunctionalInterface
    private interface FromContributions {
        void run(int rank, OpCall mine, long[] sources);
    }

    /** The one switch over the catalogue's ops: a new op is a case here. */
    private static Way of(OpKind kind) {
        return switch (kind) {
            case ALL_REDUCE ->
                new Way((rank, all, rv) -> allReduce(rank, all), (rank, mine, sources) -> reduceInto(mine, sources, 0));
            case BROADCAST ->
                new Way(
                        (rank, all, rv) -> broadcast(rank, all),
                        (rank, mine, sources) ->
                                copy(sources[mine.peer()], mine.recv().address(), mine.count(), mine.type()));
            case REDUCE ->
                new Way((rank, all, rv) -> reduce(rank, all), (rank, mine, sources) -> {
                    if (rank == mine.peer()) {
                        reduceInto(mine, sources, 0);
                    }
                });
            case ALL_GATHER ->
                new Way((rank, all, rv) -> allGather(rank, all), (rank, mine, sources) -> blocksInto(mine, sources, 0));
            case REDUCE_SCATTER ->
                new Way(
                        (rank, all, rv) -> reduceScatter(rank, all),
                        (rank, mine, sources) -> reduceInto(mine, sources, rank * blockBytes(mine)));
            case ALL_TO_ALL ->
                new Way(
                        Movement::allToAll,
                        (rank, mine, sources) -> blocksInto(mine, sources, rank * blockBytes(mine)));
            case GATHER ->
                new Way((rank, all, rv) -> gather(rank, all), (rank, mine, sources) -> {
                    if (rank == mine.peer()) {
                        blocksInto(mine, sources, 0);
                    }
                });
            case SCATTER ->
                new Way(
                        (rank, all, rv) -> scatter(rank, all),
                        (rank, mine, sources) -> copy(
                                sources[mine.peer()] + rank * blockBytes(mine),
                                mine.recv().address(),
                                mine.count(),
                                mine.type()));
            case SEND, RECV -> null;
        };
    }

    private static Way way(OpCall call) {
        Way way = WAYS[call.kind().ordinal()];
        if (way == null) {
            throw new IllegalStateException(call.kind().method() + " is not a collective");
        }
        return way;
    }

    static void run(int rank, List<Launched> all, CallMeeting<Launched> rv) {
        way(all.get(rank).call()).inProcess().run(rank, all, rv);
        rv.barrier(rank);
    }

    /**
     * Rank r reduces slice r of every send buffer into slice r of every recv at once: each result is computed once
     * and never read back. No rank writes what another reads (slice r of every send is read by rank r alone, also
     * in place), so no barrier is needed between.
     */
    private static void allReduce(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        long[] slice = slice(mine.count(), all.size(), rank);
        long byteOffset = slice[0] * mine.type().size();
        long[] recvs = new long[all.size()];
        for (int q = 0; q < recvs.length; q++) {
            recvs[q] = all.get(q).call().recv().address() + byteOffset;
        }
        reduceSlice(all, byteOffset, recvs, slice[1]);
    }

    /** Rank r reduces slice r of every send buffer into the root's recv. */
    private static void reduce(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        long[] slice = slice(mine.count(), all.size(), rank);
        long byteOffset = slice[0] * mine.type().size();
        reduceSlice(
                all, byteOffset, new long[] {all.get(mine.peer()).call().recv().address() + byteOffset}, slice[1]);
    }

    /** Rank r reduces block r of every send buffer into its recv. */
    private static void reduceScatter(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        reduceSlice(
                all,
                rank * mine.count() * mine.type().size(),
                new long[] {mine.recv().address()},
                mine.count());
    }

    /** Rank r copies its send into block r of every recv. */
    private static void allGather(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        long blockOffset = rank * mine.count() * mine.type().size();
        for (Launched other : all) {
            copy(mine.send().address(), other.call().recv().address() + blockOffset, mine.count(), mine.type());
        }
    }

    /** Rank r copies its send into block r of the root's recv. */
    private static void gather(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        long blockOffset = rank * mine.count() * mine.type().size();
        copy(
                mine.send().address(),
                all.get(mine.peer()).call().recv().address() + blockOffset,
                mine.count(),
                mine.type());
    }

    /** Rank r copies block r of the root's send into its recv. */
    private static void scatter(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        long blockOffset = rank * mine.count() * mine.type().size();
        copy(
                all.get(mine.peer()).call().send().address() + blockOffset,
                mine.recv().address(),
                mine.count(),
                mine.type());
    }

    /** Every rank copies the root's send into its recv. */
    private static void broadcast(int rank, List<Launched> all) {
        OpCall mine = all.get(rank).call();
        copy(all.get(mine.peer()).call().send().address(), mine.recv().address(), mine.count(), mine.type());
    }

    /**
     * Rank r gathers block r of every send buffer into its recv. When some rank runs it in place, every rank first
     * stages its send buffer, so that no rank overwrites a block another still has to read.
     */
    private static void allToAll(int rank, List<Launched> all, CallMeeting<Launched> rv) {
        OpCall mine = all.get(rank).call();
        long blockBytes = mine.count() * mine.type().size();
        long sendBytes = blockBytes * all.size();
        boolean staged = all.stream().anyMatch(l -> overlaps(l.call(), all.size()));
        long stage = 0;
        try {
            if (staged) {
                try {
                    stage = HostMemory.allocate(sendBytes);
                } catch (OutOfMemoryError e) {
                    throw CollectivesException.library(
                            Result.SYSTEM_ERROR,
                            rank,
                            OpKind.ALL_TO_ALL.method(),
                            "staging " + sendBytes + " bytes: " + e.getMessage());
                }
                Kernels.copy(mine.send().address(), stage, sendBytes);
                rv.scratch[rank] = stage;
                rv.barrier(rank);
            }
            for (int j = 0; j < all.size(); j++) {
                long source = staged ? rv.scratch[j] : all.get(j).call().send().address();
                copy(source + rank * blockBytes, mine.recv().address() + j * blockBytes, mine.count(), mine.type());
            }
            if (staged) {
                rv.barrier(rank); // every rank has read every stage
            }
        } finally {
            if (stage != 0) {
                HostMemory.free(stage);
            }
        }
    }

    /**
     * Bytes of its send buffer that a rank's call contributes when the ranks are in different processes: its whole
     * send region (none for the non-root ranks of a broadcast or scatter, which use no send buffer).
     */
    static long contribution(OpCall call, int ranks) {
        if (call.send() == null) {
            return 0;
        }
        return call.kind().sendExtent().elements(call.count(), ranks)
                * call.type().size();
    }

    /**
     * Rank {@code rank}'s part of a collective whose ranks are in different processes: its recv from every rank's
     * contribution, staged at {@code sources} (0 for a rank that contributes nothing). Nothing else is written, so
     * nothing waits for the other ranks.
     */
    static void fromContributions(int rank, OpCall mine, long[] sources) {
        way(mine).fromContributions().run(rank, mine, sources);
    }

    /** Bytes of one rank's block of a side of {@code count × ranks}. */
    private static long blockBytes(OpCall mine) {
        return mine.count() * mine.type().size();
    }

    /** Copies {@code mine.count()} elements at {@code byteOffset} of source q into block q of {@code mine}'s recv. */
    private static void blocksInto(OpCall mine, long[] sources, long byteOffset) {
        for (int q = 0; q < sources.length; q++) {
            copy(sources[q] + byteOffset, mine.recv().address() + q * blockBytes(mine), mine.count(), mine.type());
        }
    }

    /** Reduces {@code mine.count()} elements at {@code byteOffset} of every source into {@code mine}'s recv. */
    private static void reduceInto(OpCall mine, long[] sources, long byteOffset) {
        if (mine.count() == 0) {
            return;
        }
        long[] shifted = new long[sources.length];
        for (int q = 0; q < sources.length; q++) {
            shifted[q] = sources[q] + byteOffset;
        }
        Kernels.reduce(mine.type(), mine.op(), shifted, mine.recv().address(), mine.count());
    }

    /** Whether the op's send and recv regions share bytes (in place, for allToAll). */
    private static boolean overlaps(OpCall call, int ranks) {
        long bytes = call.count() * call.type().size() * ranks;
        long send = call.send().address();
        long recv = call.recv().address();
        return bytes > 0 && send < recv + bytes && recv < send + bytes;
    }

    /** Reduces {@code count} elements at {@code byteOffset} of every rank's send buffer into every destination. */
    private static void reduceSlice(List<Launched> all, long byteOffset, long[] destinations, long count) {
        if (count == 0) {
            return;
        }
        OpCall mine = all.get(0).call();
        long[] sources = new long[all.size()];
        for (int r = 0; r < sources.length; r++) {
            sources[r] = all.get(r).call().send().address() + byteOffset;
        }
        Kernels.reduce(mine.type(), mine.op(), sources, destinations, count);
    }

    private static void copy(long source, long destination, long count, DataType type) {
        if (source != destination && count > 0) {
            Kernels.copy(source, destination, count * type.size());
        }
    }

    /** {start, length} of share {@code part} of {@code count} elements: even, the first ranks take the remainder. */
    static long[] slice(long count, int parts, int part) {
        long base = count / parts;
        long remainder = count % parts;
        return new long[] {base * part + Math.min(part, remainder), base + (part < remainder ? 1 : 0)};
    }
}
