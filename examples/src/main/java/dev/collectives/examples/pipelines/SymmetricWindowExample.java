package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.ClusterSpec.Need;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Runs {@link SymmetricWindowAllReduce} and asks the window helpers (R10): {@code userPointer()} must be the
 * address the window was registered on, and {@code lsaDevicePointer(offset, lsaRank)} must give, for every rank of
 * this node's team, an address that moves with {@code offset}. On {@code sim}, where all ranks share one address
 * space, it must also be that rank's own address of the window.
 */
public final class SymmetricWindowExample implements Example {
    private static final int COUNT = (int) SymmetricWindowAllReduce.COUNT;
    /** A byte offset into the window at which the LSA pointers are asked too. */
    private static final long PROBE_OFFSET = 4096;
    /** LSA pointers listed in the check's account; the rest are checked all the same. */
    private static final int SHOWN_POINTERS = 4;

    @Override
    public String name() {
        return "symmetric-window";
    }

    @Override
    public String summary() {
        return "symmetric window: an in-place allreduce on it, userPointer() and lsaDevicePointer(...) checked";
    }

    @Override
    public int maxRanks() {
        return SymmetricWindowAllReduce.MAX_RANKS;
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.needing(Need.REGISTRATION, Need.SYMMETRIC_WINDOWS, Need.WINDOW_HELPERS);
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveSymmetricWindowAllReduce pipeline =
                CollectiveSymmetricWindowAllReduce.bind(rank.comm(), rank.stream())) {
            float[] sent = HostData.values(1, rank.rank(), 0, COUNT + 1);
            pipeline.shared().copyFromHost(sent);
            pipeline.step();
            pipeline.myAddress().copyFromHost(new long[] {pipeline.shared().address()});
            pipeline.shareAddresses();
            rank.stream().synchronize();
            float[] expected = sent.clone();
            for (int j = 0; j < COUNT; j++) {
                expected[j] = HostData.sum(1, rank.size(), j);
            }
            long[] addresses = new long[rank.size()];
            pipeline.addresses().copyToHost(addresses);
            RegisteredWindow window = pipeline.sharedWindow();
            return new RankReport(
                    pipeline.describe(),
                    Check.all(
                            HostData.compare(
                                    rank.rank(), "shared", expected, HostData.read(pipeline.shared(), COUNT + 1)),
                            userPointer(rank, window, pipeline.shared().address()),
                            lsaPointers(rank, window, addresses)));
        }
    }

    private static Check userPointer(RankContext rank, RegisteredWindow window, long registered) {
        OptionalLong user = window.userPointer();
        if (user.isEmpty() || user.getAsLong() != registered) {
            return Check.wrong(rank.rank(), "userPointer()", hex(registered), user);
        }
        return Check.ok("userPointer() = " + hex(registered));
    }

    private static Check lsaPointers(RankContext rank, RegisteredWindow window, long[] addresses) {
        Topology topology = rank.comm().topology();
        int first = topology.nodeOf(rank.rank()) * topology.ranksPerNode();
        int teamSize = Math.min(topology.ranksPerNode(), rank.size() - first);
        boolean peerAddresses = rank.comm().capabilities().lsaPointersArePeerAddresses();
        List<String> seen = new ArrayList<>();
        for (int lsaRank = 0; lsaRank < teamSize; lsaRank++) {
            String call = "lsaDevicePointer(0, " + lsaRank + ")";
            OptionalLong head = window.lsaDevicePointer(0, lsaRank);
            if (head.isEmpty() || head.getAsLong() == 0) {
                return Check.wrong(rank.rank(), call, "an address", head);
            }
            long base = head.getAsLong();
            OptionalLong probed = window.lsaDevicePointer(PROBE_OFFSET, lsaRank);
            if (probed.isEmpty() || probed.getAsLong() != base + PROBE_OFFSET) {
                return Check.wrong(
                        rank.rank(),
                        "lsaDevicePointer(" + PROBE_OFFSET + ", " + lsaRank + ")",
                        hex(base + PROBE_OFFSET),
                        probed);
            }
            if (peerAddresses && base != addresses[first + lsaRank]) {
                return Check.wrong(
                        rank.rank(),
                        call + ", rank " + (first + lsaRank) + "'s window",
                        hex(addresses[first + lsaRank]),
                        hex(base));
            }
            seen.add(hex(base));
        }
        String shown = seen.size() <= SHOWN_POINTERS
                ? String.join(", ", seen)
                : String.join(", ", seen.subList(0, SHOWN_POINTERS)) + ", ...";
        return Check.ok("lsaDevicePointer for the " + teamSize + " rank(s) of this node: " + shown);
    }

    private static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }
}
