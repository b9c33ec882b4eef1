package dev.collectives.tools.peers;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.Check;
import dev.collectives.examples.Runner;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Peers;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.spi.Joined;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One Java rank of a job whose other ranks may run another library (CuPy, PyTorch), started by
 * {@code gpu/peers.sh}: joins with the unique id of {@code COLLECTIVES_UNIQUE_ID} (or, with {@code --make-id}, makes
 * it, writes its hex to that file for the other ranks and joins with it), with {@code COLLECTIVES_RANK} and
 * {@code COLLECTIVES_WORLD_SIZE} and no rendezvous; binds the pipeline of the mode and runs {@link PeersOps}, each
 * result compared element by element. With {@code --wrap}, another Java library makes the communicator from that id
 * ({@link BytedecoCommunicator}) and the pipeline runs on its handle, wrapped; the owner destroys it after.
 */
@Command(
        name = PeersRankCommand.NAME,
        hidden = true,
        description = "One Java rank of a job with ranks of another library (started by gpu/peers.sh).")
public final class PeersRankCommand implements Callable<Integer> {
    static final String NAME = "peers-rank";
    /** What a rank prints last when every result was right. */
    static final String RIGHT = "peers: rank %d (java, %s): every result right%n";

    private final PrintStream out;

    @Option(names = "--mode", required = true, paramLabel = "MODE", description = "NONE, LOCAL or GRAPH")
    Registration mode;

    @Option(
            names = "--make-id",
            paramLabel = "FILE",
            description = "make the unique id here, write its hex to FILE for the other ranks, and join with it")
    Path makeId;

    @Option(
            names = "--wrap",
            description = "form the communicator with bytedeco's NCCL binding from COLLECTIVES_UNIQUE_ID and run on"
                    + " its handle, wrapped")
    boolean wrap;

    public PeersRankCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        if (makeId != null) {
            try {
                UniqueId id = Backends.fromEnvironment().uniqueId();
                System.setProperty(UniqueId.PROPERTY, id.hex()); // the bootstrap reads it as its setting
                publish(id, makeId);
                out.println("peers: made the " + id + ", written to " + makeId);
            } catch (CollectivesException e) {
                out.println("FAILED to make a unique id: " + e.getMessage());
                return Runner.NOT_JOINED;
            }
        }
        return wrap ? runWrapped() : Runner.onJoinedRank(out, (backend, rank) -> run(rank));
    }

    /** The job's rank on a communicator bytedeco's binding made: wrapped, closed before its owner destroys it. */
    private int runWrapped() {
        try {
            Backend backend = Backends.fromEnvironment();
            Bootstrap bootstrap = Bootstrap.fromEnvironment();
            UniqueId id = bootstrap
                    .uniqueId()
                    .orElseThrow(() -> new IllegalArgumentException("--wrap needs " + UniqueId.VARIABLE));
            try (BytedecoCommunicator owner =
                            new BytedecoCommunicator(id, bootstrap.size(), bootstrap.rank(), bootstrap.device());
                    Communicator comm = backend.wrapCommunicator(owner.handle(), Peers.FOREIGN);
                    Joined rank = new Joined(comm, comm.createStream(), 0, bootstrap.device())) {
                out.println("wrapped: rank " + comm.rank() + " of " + comm.size() + ", a handle of bytedeco's NCCL"
                        + " binding"
                        + comm.crossRankChecksOff()
                                .map(why -> "; checks across ranks are off: " + why)
                                .orElse(""));
                return run(rank);
            }
        } catch (CollectivesException | IllegalArgumentException | IllegalStateException e) {
            out.println("FAILED on a wrapped handle: " + e.getMessage());
            return Runner.FAILED;
        }
    }

    private int run(RankContext rank) {
        try (PeersOps ops = PeersOps.bind(mode, rank.comm(), rank)) {
            out.print(ops.pipeline().describe());
            for (int it = 0; it < PeersOps.ITERATIONS; it++) {
                Check check = ops.iteration(rank, it);
                if (!check.isOk()) {
                    out.println("peers: WRONG: rank " + rank.rank() + " iteration " + it + ": " + check.text());
                    return Runner.FAILED;
                }
            }
        }
        out.printf(RIGHT, rank.rank(), wrap ? mode + ", wrapped" : mode);
        return Runner.PASSED;
    }

    /** Writes the id's hex to {@code file} whole: to a file beside it, then renamed, so no reader sees a part. */
    private static void publish(UniqueId id, Path file) {
        try {
            Path part = file.resolveSibling(file.getFileName() + ".part");
            Files.writeString(part, id.hex() + "\n", StandardCharsets.US_ASCII);
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the unique id to " + file, e);
        }
    }
}
