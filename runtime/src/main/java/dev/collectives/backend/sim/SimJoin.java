package dev.collectives.backend.sim;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.AmongSurvivors;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Joined;
import dev.collectives.runtime.spi.Lineage;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * {@code join} for the sim. The ranks of a job call {@code Backends.get("sim").join(bootstrap)} and meet through the
 * bootstrap's rendezvous like processes do; they agree on the backend and on the sim's settings ({@link SimSettings}),
 * and find out whether they are all in one process. If they are (threads of this process), rank 0's unique id reaches
 * every rank, and the ranks holding the same id form one in-process communicator group, once all of them have arrived
 * ({@code ncclCommInitRank}/{@code mcclCommInitRank} also waits for every rank). If not, every rank forms a {@link
 * WireGroup} over the rendezvous, which stays open as the job's data plane until the communicator closes.
 */
final class SimJoin {
    /** As large as NCCL's unique id. */
    static final int UNIQUE_ID_BYTES = 128;

    private static final SecureRandom RANDOM = new SecureRandom();
    /** This process, as the other ranks of a job tell it apart from theirs. */
    private static final byte[] PROCESS_ID = newId(16);
    /** Jobs still forming, by unique id (hex); a job leaves once complete or failed. */
    private static final Map<String, Forming> FORMING = new HashMap<>();

    private SimJoin() {}

    static JoinedRank join(Bootstrap bootstrap) {
        Rendezvous rendezvous = bootstrap.rendezvous();
        JobRanks ranks = null;
        boolean keep = false;
        byte[] id;
        SimConfig config;
        Lineage lineage;
        try {
            if (rendezvous.replacement()) {
                rendezvous.reunite(bootstrap.timeout()); // where the survivors call reform
            }
            if (rendezvous.joining()) {
                rendezvous.grow(0, bootstrap.timeout()); // where the ranks call grow; it gives this rank its number
                AmongSurvivors live = AmongSurvivors.of(rendezvous); // the job's ranks that died are not in it
                ranks = JobRanks.grown(live.jobRanks(), live.job().size());
                rendezvous = live.numberedAsTheJob() ? live.job() : live;
            }
            rendezvous.agree("backend", SimBackend.NAME);
            try {
                config = SimSettings.config(bootstrap, rendezvous.size());
            } catch (CollectivesException e) {
                rendezvous.abort(e.getMessage()); // the others fail at once too, instead of at their timeout
                throw e;
            }
            Met met = meet(rendezvous, config, Lineage.newJob());
            lineage = met.lineage();
            if (!met.inOneProcess()) {
                requireServable(bootstrap, rendezvous);
                SimCommunicator comm = overWire(
                        rendezvous.rank(),
                        config,
                        rendezvous,
                        ranks != null ? ranks : JobRanks.ofJob(config.ranks()),
                        lineage);
                keep = true;
                return new Joined(comm, comm.defaultStream(), bootstrap.localRank(), bootstrap.device());
            }
            id = rendezvous.broadcast(bootstrap.rank() == 0 ? newId(UNIQUE_ID_BYTES) : null);
        } finally {
            if (!keep) {
                rendezvous.close();
            }
        }
        Forming job;
        String key = HexFormat.of().formatHex(id);
        synchronized (FORMING) {
            job = FORMING.computeIfAbsent(key, k -> new Forming(config, lineage));
        }
        SimCommunicator comm = job.arrive(bootstrap, key);
        return new Joined(comm, comm.defaultStream(), bootstrap.localRank(), bootstrap.device());
    }

    /** Whether every rank is a thread of this process, and the communicator's name, as the ranks agreed it. */
    private record Met(boolean inOneProcess, Lineage lineage) {}

    /**
     * Agrees on the sim's settings, finds out whether every rank is a thread of this process, and agrees on the name
     * of the communicator forming ({@link Lineage#agreed}), this rank claiming {@code lineage}.
     */
    private static Met meet(Rendezvous rendezvous, SimConfig config, Lineage lineage) {
        rendezvous.agree("the sim settings", SimSettings.describe(config));
        byte[] claim = lineage.claim();
        byte[] mine = Arrays.copyOf(PROCESS_ID, PROCESS_ID.length + claim.length);
        System.arraycopy(claim, 0, mine, PROCESS_ID.length, claim.length);
        byte[][] gathered = rendezvous.allGather(mine);
        boolean inOneProcess = Arrays.stream(gathered)
                .allMatch(g -> Arrays.equals(g, 0, PROCESS_ID.length, gathered[0], 0, PROCESS_ID.length));
        byte[][] claims = Arrays.stream(gathered)
                .map(g -> Arrays.copyOfRange(g, PROCESS_ID.length, g.length))
                .toArray(byte[][]::new);
        return new Met(inOneProcess, Lineage.agreed(claims));
    }

    /**
     * Rank {@code rank} of the job that the survivors of a death reform with the replacements of the dead ranks, or
     * that the ranks grew with the processes that joined, which join it as they would the job ({@link #join}): they
     * agree on the backend and the settings, and talk over a wire of their own through {@code rendezvous}; the
     * communicator holds {@code ranks} of the job, and the ranks that were there name it {@code lineage}.
     */
    static SimCommunicator rejoin(int rank, SimConfig config, Rendezvous rendezvous, JobRanks ranks, Lineage lineage) {
        rendezvous.agree("backend", SimBackend.NAME);
        Met met = meet(rendezvous, config, lineage); // never in one process: a process died, or one joined
        return overWire(rank, config, rendezvous, ranks, met.lineage());
    }

    private static SimCommunicator overWire(
            int rank, SimConfig config, Rendezvous rendezvous, JobRanks ranks, Lineage lineage) {
        return new SimCommunicator(rank, config, new WireGroup(config, rank, rendezvous, ranks), new Ledger(), lineage);
    }

    /**
     * Ranks in several processes talk through the rendezvous: a TCP one (every rank decides this alike, from the
     * same settings, so they all fail at once). A directory would be polled for every call, and a gatherer (a Spark
     * barrier stage) was not made to carry every call's data.
     */
    private static void requireServable(Bootstrap bootstrap, Rendezvous rendezvous) {
        Optional<RendezvousEndpoint> endpoint = bootstrap.endpoint();
        if (endpoint.isPresent() && endpoint.get().kind() == RendezvousEndpoint.Kind.TCP) {
            return;
        }
        String instead = endpoint.isPresent()
                ? endpoint.get() + " (files would be polled for every call); set COLLECTIVES_RENDEZVOUS=tcp://<rank 0's"
                        + " host>:<port>"
                : rendezvous.where() + ", which cannot carry every call's data; run the ranks in one process";
        throw CollectivesException.usage(
                bootstrap.rank(),
                "the sim's ranks are in several processes, which the sim"
                        + " serves through a tcp:// rendezvous only, not " + instead);
    }

    private static byte[] newId(int bytes) {
        byte[] id = new byte[bytes];
        RANDOM.nextBytes(id);
        return id;
    }

    /** One job's group, while its ranks arrive. */
    private static final class Forming {
        private final SimConfig config;
        private final CommGroup group;
        private final Lineage lineage;
        private final TreeSet<Integer> arrived = new TreeSet<>();
        private String failure;

        Forming(SimConfig config, Lineage lineage) {
            this.config = config;
            this.group = new CommGroup(config);
            this.lineage = lineage;
        }

        synchronized SimCommunicator arrive(Bootstrap bootstrap, String key) {
            int rank = bootstrap.rank();
            if (failure != null) {
                throw CollectivesException.usage(rank, failure);
            }
            if (bootstrap.size() != config.ranks()) {
                fail(
                        key,
                        rank,
                        "sim job " + shortId(key) + ": rank " + rank + " says the world size is " + bootstrap.size()
                                + ", the first rank to arrive said " + config.ranks());
            }
            if (!arrived.add(rank)) {
                fail(key, rank, "sim job " + shortId(key) + ": duplicate rank " + rank);
            }
            notifyAll();
            long deadline = System.nanoTime() + bootstrap.timeout().toNanos();
            while (arrived.size() < config.ranks() && failure == null) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    List<String> missing = IntStream.range(0, config.ranks())
                            .filter(r -> !arrived.contains(r))
                            .mapToObj(Integer::toString)
                            .collect(Collectors.toList());
                    fail(
                            key,
                            rank,
                            "sim job " + shortId(key) + ": " + (missing.size() == 1 ? "rank " : "ranks ")
                                    + String.join(", ", missing) + " did not join within "
                                    + bootstrap.timeout().toMillis() + " ms");
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
            return new SimCommunicator(rank, config, group, new Ledger(), lineage);
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
