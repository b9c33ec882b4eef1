package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static dev.collectives.runtime.bootstrap.RankThreadsForTests.connectWhenListening;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class TcpRendezvousTest extends RendezvousContractTest {
    private int port;

    @Override
    String endpoint() {
        port = RankThreadsForTests.freePort();
        return "tcp://127.0.0.1:" + port;
    }

    @Override
    String wrongTokenMessage() {
        return "rank 1: rank 0 at tcp://127.0.0.1:" + port + " turned rank 1 away: a connection from /127.0.0.1:";
    }

    @Override
    String goneMessage() {
        return "rank 2 at /127.0.0.1:";
    }

    @Test
    void aStrayConnectionIsTurnedAwayWithoutEndingTheJob() {
        String endpoint = endpoint();
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            if (rank == 1) {
                try (Socket stray = connectWhenListening(port)) {
                    new DataOutputStream(stray.getOutputStream()).writeBytes("GET / HTTP/1.0\r\n\r\n");
                    stray.getInputStream().readAllBytes();
                } catch (java.net.SocketException reset) {
                    // rank 0 closed it with part of the request unread: the stray sees a reset, which is fine
                }
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, GENEROUS).rendezvous()) {
                return rendezvous.broadcast(new byte[] {5});
            }
        });
        outcomes.forEach(o -> assertArrayEquals(new byte[] {5}, o.get()));
    }

    @Test
    void anOversizedMessageIsRefusedBeforeItIsRead() {
        String endpoint = endpoint();
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            if (rank == 0) {
                try (Rendezvous rendezvous = bootstrap(endpoint, 0, 2, GENEROUS).rendezvous()) {
                    return rendezvous.allGather(new byte[8]);
                }
            }
            // a member that holds the token but then claims a message of 1 GiB
            try (Socket s = RankThreadsForTests.admittedAs(port, 1, 2)) {
                RankThreadsForTests.announce(s, 1 << 30);
                return s.getInputStream().readAllBytes();
            }
        });
        String root = outcomes.get(0).message();
        assertTrue(
                root.contains("rank 1 at /127.0.0.1:")
                        && root.contains("sent a message of 1073741824 bytes, above the limit of 65536"),
                root);
    }

    @Test
    void aLateDuplicateEndsTheJobAtTheNextOperation() {
        String endpoint = endpoint();
        CountDownLatch formed = new CountDownLatch(2);
        CountDownLatch turnedAway = new CountDownLatch(1);
        List<Outcome<Object>> outcomes = RankThreadsForTests.run(3, index -> () -> {
            if (index == 2) { // a second rank 1, once the job has formed
                RankThreadsForTests.await(formed);
                try {
                    return bootstrap(endpoint, 1, 2, GENEROUS).rendezvous();
                } finally {
                    turnedAway.countDown();
                }
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, index, 2, GENEROUS).rendezvous()) {
                rendezvous.broadcast(new byte[1]);
                formed.countDown();
                RankThreadsForTests.await(turnedAway);
                return rendezvous.broadcast(new byte[1]);
            }
        });
        for (Outcome<Object> outcome : outcomes) {
            assertTrue(outcome.message().contains("duplicate rank 1"), outcome.message());
        }
    }

    @Test
    void rankZeroMustRunOnTheRendezvousHost() {
        // 192.0.2.0/24 is reserved for documentation: never an address of this host
        Bootstrap elsewhere = bootstrap("tcp://192.0.2.1:29500", 0, 2, SHORT);
        BootstrapException e = assertThrows(BootstrapException.class, elsewhere::rendezvous);
        assertTrue(
                e.getMessage().contains("rank 0 must run on the rendezvous host, but tcp://192.0.2.1:29500"),
                e.getMessage());
    }

    @Test
    void somethingElseListeningAtTheAddressIsNotMistakenForRankZero() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket s = other.accept()) {
                    s.getOutputStream().write("SSH-2.0-OpenSSH\r\n".getBytes(StandardCharsets.US_ASCII));
                    s.getInputStream().read();
                } catch (java.io.IOException ignored) {
                    // the test checks the client's side
                }
            });
            server.start();
            Bootstrap member = bootstrap("tcp://127.0.0.1:" + other.getLocalPort(), 1, 2, SHORT);
            BootstrapException e = assertThrows(BootstrapException.class, member::rendezvous);
            assertTrue(
                    e.getMessage().contains("is not a collectives rendezvous of version " + Channel.VERSION),
                    e.getMessage());
            server.join(5000);
        }
    }

    @Test
    void aServerOfAnotherProtocolVersionIsRefusedNamingBothVersions() throws Exception {
        try (ServerSocket older = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket s = older.accept()) {
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(Channel.MAGIC);
                    out.writeInt(Channel.VERSION - 1);
                    out.write(new byte[JobToken.NONCE_BYTES]);
                    out.writeByte(Channel.HOSTED_BY_RANK_0);
                    out.flush();
                    s.getInputStream().read();
                } catch (java.io.IOException ignored) {
                    // the test checks the client's side
                }
            });
            server.start();
            String endpoint = "tcp://127.0.0.1:" + older.getLocalPort();
            BootstrapException e = assertThrows(BootstrapException.class, bootstrap(endpoint, 1, 2, SHORT)::rendezvous);
            assertTrue(
                    e.getMessage()
                            .contains(endpoint + " speaks version " + (Channel.VERSION - 1)
                                    + " of the collectives rendezvous protocol, this rank version " + Channel.VERSION),
                    e.getMessage());
            server.join(5000);
        }
    }

    @Test
    void aRankOfAnotherProtocolVersionIsRefusedNamingBothVersionsWithoutEndingTheJob() throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        try (JobServer server =
                JobServer.start(RendezvousEndpoint.parse(endpoint), 1, RankThreadsForTests.TOKEN, SHORT)) {
            try (Socket older = RankThreadsForTests.connectWhenListening(port)) {
                DataInputStream in = new DataInputStream(older.getInputStream());
                in.readInt();
                in.readInt();
                in.readNBytes(JobToken.NONCE_BYTES + 1 + Integer.BYTES); // nonce, who hosts, heartbeat timeout
                DataOutputStream out = new DataOutputStream(older.getOutputStream());
                out.writeInt(Channel.MAGIC);
                out.writeInt(Channel.VERSION + 1);
                out.write(new byte[2 * Integer.BYTES + JobToken.NONCE_BYTES + JobToken.MAC_BYTES]);
                out.flush();
                assertEquals(Channel.REJECTED, in.readByte());
                String reason = Channel.readText(in);
                assertTrue(
                        reason.matches("a rank at /127\\.0\\.0\\.1:\\d+ speaks version " + (Channel.VERSION + 1)
                                + " of the collectives rendezvous protocol, this server version " + Channel.VERSION
                                + " \\(every rank and the server need the same release of the library\\)"),
                        reason);
            }
            try (Rendezvous only = Bootstrap.builder()
                    .rank(0)
                    .size(1)
                    .rendezvous(endpoint)
                    .timeout(SHORT)
                    .jobToken(RankThreadsForTests.TOKEN)
                    .option("rendezvousServer", "standalone")
                    .build()
                    .rendezvous()) {
                assertArrayEquals(new byte[][] {{7}}, only.allGather(new byte[] {7}));
            }
        }
    }

    @Test
    void messagesAreAuthenticatedPerDirection() {
        JobToken token = JobToken.of(RankThreadsForTests.TOKEN, 0);
        byte[] a = token.mac("message", new byte[] {0, 1}, JobToken.ints(1), "x".getBytes(StandardCharsets.UTF_8));
        byte[] b = token.mac("message", new byte[] {1, 1}, JobToken.ints(1), "x".getBytes(StandardCharsets.UTF_8));
        assertTrue(!java.util.Arrays.equals(a, b));
        assertTrue(
                token.verify(a, "message", new byte[] {0, 1}, JobToken.ints(1), "x".getBytes(StandardCharsets.UTF_8)));
        assertEquals("JobToken[hidden]", token.toString());
    }
}
