package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.member.DumpClient;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.Dumps;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A dump asked of a job's server: each live rank is asked and answers; a rank that left is reported gone, with why. */
@Timeout(60)
class DumpOnDemandServerTest {
    @Test
    void theServerAsksEveryLiveRankAndReportsTheOneThatLeft() throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        Duration timeout = Duration.ofSeconds(20);
        try (JobServer server =
                        JobServer.start(RendezvousEndpoint.parse(endpoint), 2, RankThreadsForTests.TOKEN, timeout);
                Channel left = RankThreadsForTests.authenticatedAs(port, 0, 2);
                Channel member = RankThreadsForTests.authenticatedAs(port, 1, 2)) {
            server.awaitJoined();
            left.send(FrameType.LEAVE, 0, new byte[0], Deadline.after(timeout));
            CompletableFuture<List<Dumps.Answer>> asked = CompletableFuture.supplyAsync(() ->
                    DumpClient.ask(RendezvousEndpoint.parse(endpoint), RankThreadsForTests.TOKEN, "/records", timeout));

            Channel.Frame dump = member.receiveNews();
            assertEquals(FrameType.DUMP, dump.type());
            assertEquals("/records", new String(dump.bytes(), StandardCharsets.UTF_8));
            member.send(
                    FrameType.DUMPED,
                    dump.operation(),
                    Dumps.written(List.of("/records/flight-rank1.json")),
                    Deadline.after(timeout));

            assertEquals(
                    List.of(
                            new Dumps.Answer(0, Dumps.Outcome.GONE, List.of(), "it closed its rendezvous"),
                            new Dumps.Answer(1, Dumps.Outcome.WROTE, List.of("/records/flight-rank1.json"), "")),
                    asked.get(30, TimeUnit.SECONDS));
            assertNull(server.ended(), "a dump ended the job: " + server.ended());
        }
    }
}
