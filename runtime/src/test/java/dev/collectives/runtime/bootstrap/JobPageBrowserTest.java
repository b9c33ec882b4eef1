package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobObserver;
import dev.collectives.runtime.bootstrap.server.JobPage;
import dev.collectives.runtime.bootstrap.server.JobServer;
import dev.collectives.runtime.bootstrap.server.JobView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The job's page in a real browser: headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * CI installs) driven through Selenium. Where they are not installed the tests are skipped, saying so.
 */
class JobPageBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir
    Path profile;

    private WebDriver browser;
    private final List<ChildRank> children = new ArrayList<>();

    @BeforeEach
    void openBrowser() {
        Assumptions.assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "the job page's browser tests need Debian's chromium and chromium-driver (" + CHROMIUM + ", "
                        + CHROMEDRIVER + "), which .ci/run installs: apt-get install chromium chromium-driver");
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments(
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--window-size=1280,900",
                        "--user-data-dir=" + profile);
        browser = new ChromeDriver(driver, options);
    }

    @AfterEach
    void close() {
        children.forEach(ChildRank::close);
        if (browser != null) {
            browser.quit();
        }
    }

    /**
     * Waits until the page's part {@code css} says {@code text}, as the page updates itself, and returns all it says
     * then (the page replaces its parts every second: a part read as it is replaced is read again).
     */
    private String awaitText(String css, String text) {
        return new WebDriverWait(browser, LONG)
                .ignoring(StaleElementReferenceException.class)
                .ignoring(NoSuchElementException.class)
                .until(page -> {
                    String said = page.findElement(By.cssSelector(css)).getText();
                    return said.contains(text) ? said : null;
                });
    }

    @Test
    void thePageShowsTheRanksAndTheVerdictThenUpdatesItselfWithADeathAndItsRecovery() {
        AtomicLong clock = new AtomicLong();
        JobView view = JobPageTest.jobWithAHangThenADeath(clock);
        try (JobPage page = JobPage.serve(view, 0)) {
            browser.get(page.address().toString());
            String verdict = awaitText("#verdict", "rank 1 never enqueued");
            assertTrue(
                    verdict.contains(
                            "rank 1 never enqueued #8 allReduce of communicator formed (3 ranks); ranks 0 and 2"
                                    + " wait in it for 12.0 s"),
                    verdict);
            String rankOne = awaitText("#rank-1", "running");
            assertTrue(rankOne.startsWith("1 running /127.0.0.1:41001 0 ms formed (3 ranks) #7 #7"), rankOne);
            awaitText("#refused", "failed authentication");

            view.gone(
                    1, JobObserver.Fate.DIED, "rank 1 at /127.0.0.1:41001 is gone: its connection ended", clock.get());
            assertTrue(awaitText("#rank-1", "died").startsWith("1 died /127.0.0.1:41001"));
            assertTrue(awaitText("#recoveries", "the death of rank 1").contains("(under way)"));
            awaitText("#verdict", "No rank waits in what another never enqueued");
        }
    }

    @Test
    void aSimJobWhoseRankOneSkipsAStepShowsTheHangVerdictOnThePageAndInTheLog() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        Duration verdictAfter = Duration.ofSeconds(2);
        String expected =
                "rank 1 never enqueued #1 allReduce of communicator formed (3 ranks); ranks 0 and 2 wait in it";
        CountDownLatch logged = new CountDownLatch(1);
        AtomicReference<String> logLine = new AtomicReference<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getMessage().contains(expected) && logLine.compareAndSet(null, record.getMessage())) {
                    logged.countDown();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger log = Logger.getLogger("dev.collectives.bootstrap");
        log.addHandler(handler);
        try (JobServer server = JobServer.start(
                        RendezvousEndpoint.parse(endpoint),
                        3,
                        RankThreadsForTests.TOKEN,
                        LONG,
                        JobServer.DEFAULT_HEARTBEAT_TIMEOUT,
                        verdictAfter);
                JobPage page = JobPage.serve(server.view(), 0)) {
            for (int rank = 2; rank >= 0; rank--) {
                children.add(0, start(endpoint, rank));
            }
            children.get(1).await("WAITING", LONG); // rank 1 skips the step the others call
            children.get(0).await("CALLING", LONG);
            children.get(2).await("CALLING", LONG);
            browser.get(page.address().toString());

            assertTrue(logged.await(LONG.toSeconds(), TimeUnit.SECONDS), "no hang verdict was logged");
            assertTrue(
                    logLine.get()
                            .contains(
                                    "the job that the rendezvous server at " + endpoint + " serves hangs: " + expected),
                    logLine.get());
            String shown = awaitText("#verdict", expected);
            assertTrue(shown.contains(expected), shown);
            assertNull(server.ended(), "the job ended before its hang verdict: " + server.ended());
            Files.copy(
                    ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(),
                    Path.of("target", "job-page-hang.png"),
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            log.removeHandler(handler);
        }
    }

    @Test
    void aFrozenRankIsShownExcludedWithTheRecoveryOfTheSurvivors() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        Duration heartbeatTimeout = Duration.ofSeconds(4);
        try (JobServer server = JobServer.start(
                        RendezvousEndpoint.parse(endpoint),
                        3,
                        RankThreadsForTests.TOKEN,
                        LONG,
                        heartbeatTimeout,
                        Duration.ofSeconds(2));
                JobPage page = JobPage.serve(server.view(), 0)) {
            for (int rank = 2; rank >= 0; rank--) {
                Map<String, String> variables = variables(endpoint, rank);
                variables.put("COLLECTIVES_HEARTBEAT_TIMEOUT", "4s");
                variables.put("FROZEN_RANK", "1");
                children.add(0, ChildRank.start("rank " + rank, FrozenRankProcess.class, variables, "shrink"));
            }
            children.forEach(rank -> rank.await("STEPPING", LONG));
            browser.get(page.address().toString());
            children.get(1).signal("STOP");

            String frozen = awaitText("#rank-1", "excluded");
            assertTrue(frozen.startsWith("1 excluded /127.0.0.1:"), frozen);
            awaitText("#recoveries", "the exclusion of rank 1");
            // whichever survivor beats first with the communicator they shrank to ends the recovery: it is named by
            // its lineage, which is the same on both
            String recovered = awaitText("#recoveries", "runs communicator");
            assertTrue(
                    recovered.matches(
                            "(?s).*: rank [02] runs communicator formed > shrunk #\\d+ without rank 1 \\(2 ranks\\).*"),
                    recovered);
            awaitText("#deaths", "1 fenced rank 1 at /127.0.0.1:");
            awaitText("#deaths", "is gone: no heartbeat for 4 s");
            Files.copy(
                    ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(),
                    Path.of("target", "job-page-frozen-rank.png"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static Map<String, String> variables(String endpoint, int rank) {
        Map<String, String> variables = new HashMap<>();
        variables.put("COLLECTIVES_RANK", String.valueOf(rank));
        variables.put("COLLECTIVES_WORLD_SIZE", "3");
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        variables.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        variables.put("COLLECTIVES_JOB_TOKEN", RankThreadsForTests.TOKEN);
        variables.put("COLLECTIVES_BOOTSTRAP_TIMEOUT", "60s");
        variables.put("COLLECTIVES_SIM_TIMEOUT", "120s");
        return variables;
    }

    private ChildRank start(String endpoint, int rank) {
        return ChildRank.start("rank " + rank, SimRankProcess.class, variables(endpoint, rank), "hang");
    }
}
