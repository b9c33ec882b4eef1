package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRendezvousTest extends RendezvousContractTest {
    @TempDir
    Path shared;

    private int directories;

    @Override
    String endpoint() {
        return "file:" + shared.resolve("job-" + ++directories);
    }

    @Override
    String wrongTokenMessage() {
        return "was not written with this job's token";
    }

    @Override
    String goneMessage() {
        return "rank 2 did not take part in allgather #2 at file:";
    }

    @Test
    void rankZeroRemovesTheDirectoryWhenEveryRankHasClosed() {
        String endpoint = endpoint();
        Path directory = RendezvousEndpoint.parse(endpoint).directory();
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, GENEROUS).rendezvous()) {
                return rendezvous.broadcast(new byte[] {9});
            }
        });
        outcomes.forEach(o -> assertArrayEquals(new byte[] {9}, o.get()));
        assertFalse(Files.exists(directory), directory + " is still there");
    }

    @Test
    void aDirectoryLeftByAnEarlierJobIsRefused() throws IOException {
        String endpoint = endpoint();
        Path directory = RendezvousEndpoint.parse(endpoint).directory();
        Files.createDirectories(directory);
        Files.write(directory.resolve("op-1.rank-0"), new byte[3]);
        BootstrapException e = assertThrows(
                BootstrapException.class, () -> bootstrap(endpoint, 0, 2, SHORT).rendezvous());
        assertTrue(e.getMessage().contains("already exists and is not empty"), e.getMessage());
    }

    @Test
    void anEmptyDirectoryMadeInAdvanceIsFine() throws IOException {
        String endpoint = endpoint();
        Files.createDirectories(RendezvousEndpoint.parse(endpoint).directory());
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, GENEROUS).rendezvous()) {
                return rendezvous.broadcast(new byte[] {1});
            }
        });
        outcomes.forEach(o -> assertArrayEquals(new byte[] {1}, o.get()));
    }

    @Test
    void aRankArrivingAfterAnotherEndedTheJobIsToldWhyWhenItJoins() {
        String endpoint = endpoint();
        CountDownLatch ended = new CountDownLatch(2);
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 2) {
                RankThreadsForTests.await(ended);
                return bootstrap(endpoint, 2, 3, GENEROUS).rendezvous();
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, GENEROUS).rendezvous()) {
                if (rank == 1) {
                    rendezvous.abort("cudaMalloc failed: out of memory");
                }
                return null;
            } finally {
                ended.countDown();
            }
        });
        assertTrue(
                outcomes.get(0).message().contains("rank 1 ended the job: cudaMalloc failed"),
                outcomes.get(0).message());
        String late = outcomes.get(2).message();
        assertTrue(
                late.contains("rank 2: rank 1 ended the job: cudaMalloc failed: out of memory (seen at " + endpoint
                        + " during joining)"),
                late);
    }

    @Test
    void aForgedFileIsRefused() {
        String endpoint = endpoint();
        Path directory = RendezvousEndpoint.parse(endpoint).directory();
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, GENEROUS).rendezvous()) {
                if (rank == 0) {
                    Files.write(directory.resolve("op-1.rank-0"), new byte[64]);
                    return new byte[0];
                }
                return rendezvous.broadcast(null);
            }
        });
        String member = outcomes.get(1).message();
        assertTrue(
                member.contains("the file of rank 0 for broadcast #1") && member.contains("failed authentication"),
                member);
    }
}
