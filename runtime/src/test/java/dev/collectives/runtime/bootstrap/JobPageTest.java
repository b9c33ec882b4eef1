package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.bootstrap.server.JobMetrics;
import dev.collectives.runtime.bootstrap.server.JobObserver;
import dev.collectives.runtime.bootstrap.server.JobPage;
import dev.collectives.runtime.bootstrap.server.JobView;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The job's page and metrics over HTTP, for a job whose events a test gives on a clock it moves. */
class JobPageTest {
    private static final long SECOND = 1_000_000_000L;

    /**
     * A job of 3 ranks: rank 1 stops enqueuing at entry 7 while ranks 0 and 2 wait in #8, a stray claim is refused,
     * then rank 1 dies and the survivors meet; the clock reads {@code clock}.
     */
    static JobView jobWithAHangThenADeath(AtomicLong clock) {
        JobView view =
                new JobView("the rendezvous server at tcp://127.0.0.1:29500", 3, Duration.ofSeconds(10), clock::get);
        for (int rank = 0; rank < 3; rank++) {
            view.joined(rank, "/127.0.0.1:4100" + rank, JobObserver.Arrival.LAUNCHED, clock.get());
        }
        view.refused("a peer at /10.0.0.9:5000 failed authentication (a wrong job token?)", clock.get());
        beatAll(view, clock.get());
        clock.addAndGet(12 * SECOND);
        beatAll(view, clock.get());
        return view;
    }

    static void beatAll(JobView view, long now) {
        view.beat(0, progress(8, 7, "allReduce"), now);
        view.beat(1, progress(7, 7, ""), now);
        view.beat(2, progress(8, 7, "allReduce"), now);
    }

    private static Progress progress(long enqueued, long completed, String waitingIn) {
        return new Progress(List.of(new Progress.Place("formed", 3, enqueued, completed, waitingIn)));
    }

    private static HttpResponse<String> get(JobPage page, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(page.address().resolve(path)).build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void metricsGiveEachRanksOpsAndHeartbeatAndTheJobsCountsInThePrometheusFormat() throws Exception {
        AtomicLong clock = new AtomicLong();
        JobView view = jobWithAHangThenADeath(clock);
        clock.addAndGet(SECOND / 2);
        try (JobPage page = JobPage.serve(view, 0)) {
            HttpResponse<String> metrics = get(page, "/metrics");
            assertEquals(
                    JobMetrics.CONTENT_TYPE,
                    metrics.headers().firstValue("Content-Type").orElse(""));
            String text = metrics.body();
            for (String line : List.of(
                    "# TYPE collectives_ops_enqueued_total counter",
                    "collectives_ops_enqueued_total{rank=\"1\",communicator=\"formed\",size=\"3\"} 7",
                    "collectives_ops_enqueued_total{rank=\"2\",communicator=\"formed\",size=\"3\"} 8",
                    "collectives_ops_completed_total{rank=\"0\",communicator=\"formed\",size=\"3\"} 7",
                    "collectives_heartbeat_age_seconds{rank=\"1\"} 0.500",
                    "collectives_rank_deaths_total{rank=\"1\"} 0",
                    "collectives_job_ranks 3",
                    "collectives_recoveries_total 0",
                    "collectives_refused_claims_total 1",
                    "collectives_hang_verdicts 1")) {
                assertTrue(text.lines().anyMatch(line::equals), line + " in\n" + text);
            }
            view.gone(1, JobObserver.Fate.FENCED, "rank 1 is gone: no heartbeat for 6 s", clock.get());
            String after = get(page, "/metrics").body();
            assertTrue(after.contains("collectives_rank_deaths_total{rank=\"1\"} 1\n"), after);
            assertTrue(after.contains("collectives_recoveries_total 1\n"), after);
            assertTrue(!after.contains("collectives_heartbeat_age_seconds{rank=\"1\"}"), after);
        }
    }

    @Test
    void theViewShowsTheVerdictTheRanksTheDeathTheRecoveryPhasesAndTheRefusedClaim() throws Exception {
        AtomicLong clock = new AtomicLong();
        JobView view = jobWithAHangThenADeath(clock);
        try (JobPage page = JobPage.serve(view, 0)) {
            String hung = get(page, "/view").body();
            assertTrue(
                    hung.contains(
                            "rank 1 never enqueued #8 allReduce of communicator formed (3 ranks); ranks 0 and 2 wait"
                                    + " in it for 12.0 s"),
                    hung);
            assertTrue(
                    hung.contains(
                            "<tr class=\"running\" id=\"rank-1\"><td>1</td><td>running</td>"
                                    + "<td>/127.0.0.1:41001</td><td>0 ms</td><td>formed (3 ranks)</td><td>#7</td><td>#7</td><td></td></tr>"),
                    hung);
            assertTrue(hung.contains("a peer at /10.0.0.9:5000 failed authentication"), hung);

            clock.addAndGet(SECOND);
            view.gone(
                    1,
                    JobObserver.Fate.DIED,
                    "rank 1 at /127.0.0.1:41001 is gone: <its connection ended>",
                    clock.get());
            clock.addAndGet(SECOND / 5);
            view.operationStarted("allgather #9", clock.get());
            view.operationAnswered("allgather #9", clock.get());
            clock.addAndGet(SECOND / 5);
            view.beat(
                    0,
                    new Progress(List.of(new Progress.Place("formed > shrunk #0 without rank 1", 2, 0, 0, ""))),
                    clock.get());
            String recovered = get(page, "/view").body();
            assertTrue(recovered.contains("<td>died</td>"), recovered);
            assertTrue(recovered.contains("&lt;its connection ended&gt;"), recovered);
            assertTrue(
                    recovered.contains(
                            "At 13.0 s, the death of rank 1</p><ol><li>+200 ms: allgather #9 answered</li>"
                                    + "<li>+400 ms: rank 0 runs communicator formed &gt; shrunk #0 without rank 1 (2 ranks)</li></ol>"),
                    recovered);
            assertTrue(recovered.contains("No rank waits in what another never enqueued"), recovered);
            assertEquals(404, get(page, "/elsewhere").statusCode());
            assertTrue(get(page, "/").body().contains("setInterval(refresh, 1000)"));
        }
    }

    @Test
    void thePageListensOnTheLoopbackOnly() {
        try (JobPage page = JobPage.serve(new JobView("a job", 1, Duration.ofSeconds(10), () -> 0), 0)) {
            assertEquals("127.0.0.1", page.address().getHost());
            assertTrue(page.address().getPort() > 0);
            assertEquals(URI.create("http://127.0.0.1:" + page.address().getPort() + "/"), page.address());
        }
    }
}
