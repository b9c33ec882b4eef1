package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.bootstrap.Bootstrap;
import dev.collectives.runtime.spi.Joined;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * {@code join} for the sim: the ranks of a job are threads of this process that each call
 * {@code Backends.get("sim").join(bootstrap)}. They meet through the bootstrap's rendezvous like processes do,
 * rank 0's unique id reaches every rank, and the ranks holding the same id form one sim communicator group here,
 * once all of them have arrived ({@code mcclCommInitRank} also waits for every rank).
 */
final class SimJoin {
    /** As large as NCCL's unique id. */
    static final int UNIQUE_ID_BYTES = 128;

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Jobs still forming, by unique id (hex); a job leaves once complete or failed. */
    private static final Map<String, Forming> FORMING = new HashMap<>();

    private SimJoin() {
    }

    static JoinedRank join(Bootstrap bootstrap) {
        byte[] id;
        try (dev.collectives.runtime.bootstrap.Rendezvous rendezvous = bootstrap.rendezvous()) {
            rendezvous.agree("backend", SimBackend.NAME);
            id = rendezvous.broadcast(bootstrap.rank() == 0 ? newUniqueId() : null);
        }
        Forming job;
        String key = HexFormat.of().formatHex(id);
        synchronized (FORMING) {
            job = FORMING.computeIfAbsent(key, k -> new Forming(bootstrap));
        }
        SimCommunicator comm = job.arrive(bootstrap, key);
        return new Joined(comm, comm.defaultStream(), bootstrap.localRank(), bootstrap.device());
    }

    private static byte[] newUniqueId() {
        byte[] id = new byte[UNIQUE_ID_BYTES];
        RANDOM.nextBytes(id);
        return id;
    }

    /** One job's group, while its ranks arrive. */
    private static final class Forming {
        private final SimConfig config;
        private final CommGroup group;
        private final TreeSet<Integer> arrived = new TreeSet<>();
        private String failure;

        Forming(Bootstrap first) {
            // the bootstrap's timeout bounds the job's collectives too, as it bounds its rendezvous
            this.config = SimBackend.cluster().ranks(first.size())
                    .ranksPerNode(first.localSize().orElse(first.size())).timeout(first.timeout()).config();
            this.group = new CommGroup(config);
        }

        synchronized SimCommunicator arrive(Bootstrap bootstrap, String key) {
            int rank = bootstrap.rank();
            if (failure != null) {
                throw CollectivesException.usage(rank, failure);
            }
            if (bootstrap.size() != config.ranks()) {
                fail(key, rank, "sim job " + shortId(key) + ": rank " + rank + " says the world size is "
                        + bootstrap.size() + ", the first rank to arrive said " + config.ranks());
            }
            if (!arrived.add(rank)) {
                fail(key, rank, "sim job " + shortId(key) + ": duplicate rank " + rank);
            }
            notifyAll();
            long deadline = System.nanoTime() + bootstrap.timeout().toNanos();
            while (arrived.size() < config.ranks() && failure == null) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    List<String> missing = IntStream.range(0, config.ranks()).filter(r -> !arrived.contains(r))
                            .mapToObj(Integer::toString).collect(Collectors.toList());
                    fail(key, rank, "sim job " + shortId(key) + ": " + (missing.size() == 1 ? "rank " : "ranks ")
                            + String.join(", ", missing) + " did not join within "
                            + bootstrap.timeout().toMillis() + " ms (the sim's ranks must be threads of one process)");
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail(key, rank, "interrupted while the sim job " + shortId(key) + " was forming");
                }
            }
            if (failure != null) {
                throw CollectivesException.usage(rank, failure);
            }
            synchronized (FORMING) {
                FORMING.remove(key);
            }
            return new SimCommunicator(rank, config, group, new Ledger());
        }

        private void fail(String key, int rank, String reason) {
            if (failure == null) {
                failure = reason;
            }
            notifyAll();
            synchronized (FORMING) {
                FORMING.remove(key);
            }
            throw CollectivesException.usage(rank, failure);
        }

        private static String shortId(String key) {
            return key.substring(0, 12);
        }
    }
}
