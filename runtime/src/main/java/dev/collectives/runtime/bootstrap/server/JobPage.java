package dev.collectives.runtime.bootstrap.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.EventLoop;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The live page of a job, served by its rendezvous server where the user turns it on ({@link Settings#JOB_PAGE}):
 * {@code /} is one HTML page that asks {@code /view} every second for the job as it stands (every rank's phase, host,
 * heartbeat age and progress, the hang verdict, the deaths, the recoveries with their phases, the refused claims);
 * {@code /metrics} is the same in the Prometheus text format ({@link JobMetrics}).
 *
 * <p>It listens on the loopback interface only, so only users of the server's host see it (others reach it through
 * an SSH tunnel): it shows hosts and failures, never the job token, and takes no action.
 */
public final class JobPage implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.collectives.bootstrap");

    private final HttpServer http;
    private final ExecutorService thread =
            Executors.newSingleThreadExecutor(EventLoop.smallDaemonThreads("collectives-job-page"));
    private boolean closed;

    private JobPage(JobView view, int port) throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        byte[] page = page();
        http.createContext("/", exchange -> {
            if (exchange.getRequestURI().getPath().equals("/")) {
                send(exchange, 200, "text/html; charset=utf-8", page);
            } else {
                send(exchange, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
            }
        });
        http.createContext(
                "/view",
                exchange -> send(exchange, 200, "text/html; charset=utf-8", utf8(JobPageView.of(view.snapshot()))));
        http.createContext(
                "/metrics",
                exchange -> send(exchange, 200, JobMetrics.CONTENT_TYPE, utf8(JobMetrics.of(view.snapshot()))));
        http.setExecutor(thread);
        http.start();
    }

    /** Serves {@code view}'s page at {@code port} of the loopback interface (0: any free port). */
    public static JobPage serve(JobView view, int port) {
        try {
            return new JobPage(view, port);
        } catch (IOException e) {
            throw BootstrapException.settings(
                    -1, "the job's page cannot listen at port " + port + " of the loopback interface: " + e);
        }
    }

    /**
     * The page of {@code view}, where {@link Settings#JOB_PAGE} turns it on (its port), logged where it is; else
     * empty.
     */
    static Optional<JobPage> ifTurnedOn(JobView view, String server) {
        Optional<Settings.Sourced<String>> setting = Settings.ofProcess().option(Settings.JOB_PAGE);
        if (setting.isEmpty()) {
            return Optional.empty();
        }
        int port;
        try {
            port = Integer.parseInt(setting.get().value());
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw BootstrapException.settings(
                    -1,
                    setting.get().source() + " is '" + setting.get().value() + "', not a port (0 for any free one)");
        }
        JobPage page = serve(view, port);
        LOG.log(System.Logger.Level.INFO, "the page of the job at " + server + ": " + page.address());
        return Optional.of(page);
    }

    /** Where the page is: {@code http://127.0.0.1:port/}. */
    public URI address() {
        InetSocketAddress at = http.getAddress();
        return URI.create("http://" + at.getAddress().getHostAddress() + ":" + at.getPort() + "/");
    }

    private static byte[] page() {
        try (InputStream in = JobPage.class.getResourceAsStream("job-page.html")) {
            return in.readAllBytes();
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("the runtime jar lacks its job page (job-page.html)", e);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Stops serving; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        http.stop(0);
        thread.shutdownNow();
    }

    /** "1.2 s", "340 ms". */
    static String duration(Duration d) {
        long millis = d.toMillis();
        return millis < 1000 ? millis + " ms" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
