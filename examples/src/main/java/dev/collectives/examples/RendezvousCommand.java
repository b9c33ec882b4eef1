package dev.collectives.examples;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.RendezvousServer;
import dev.collectives.runtime.bootstrap.Settings;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code runner rendezvous}: serves a job's rendezvous in a process of its own, as torchrun's agent hosts its store,
 * so that any rank's death, rank 0's too, leaves the survivors a place to meet again and a replacement a place to
 * join. Every rank then joins it with {@code COLLECTIVES_RENDEZVOUS=tcp://<this host>:<port>} and
 * {@code COLLECTIVES_RENDEZVOUS_SERVER=standalone}.
 */
@Command(
        name = "rendezvous",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Serves the rendezvous of a job of --ranks ranks at --host and --port until every rank has left or died, "
                    + "or the job ended. Every rank joins it with COLLECTIVES_RENDEZVOUS=tcp://HOST:PORT and "
                    + "COLLECTIVES_RENDEZVOUS_SERVER=standalone: then the job outlives the death of any rank, rank 0's "
                    + "too (the survivors shrink it away, or a replacement takes its place).",
            "The job token comes from COLLECTIVES_JOB_TOKEN, or from --token-file."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every rank left or died, and the job did not fail",
            "1:the job failed (a rank ended it, ranks did not join, a stall's verdict)",
            "2:a bad command line"
        })
final class RendezvousCommand implements Callable<Integer> {
    /** The ranks' option of the same meaning: {@code COLLECTIVES_HEARTBEAT_TIMEOUT}. */
    private static final String HEARTBEAT_TIMEOUT = "heartbeatTimeout";

    private final PrintStream out;

    @Spec
    CommandSpec spec;

    /** From --heartbeat-timeout; null where not given. */
    private Duration heartbeatTimeout;

    @Option(names = "--ranks", paramLabel = "N", required = true, description = "the number of ranks of the job")
    int ranks;

    @Option(names = "--port", paramLabel = "PORT", required = true, description = "the TCP port it listens on")
    int port;

    @Option(
            names = "--host",
            paramLabel = "HOST",
            description = "the address the ranks reach it at: a loopback address serves this host's ranks only, "
                    + "another listens on every interface; default: 127.0.0.1")
    String host = "127.0.0.1";

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description = "a file holding the job token (else COLLECTIVES_JOB_TOKEN)")
    Path tokenFile;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            description = "how long the ranks may take to join, and each operation; default: ${DEFAULT-VALUE}")
    long timeoutSeconds = RendezvousServer.DEFAULT_TIMEOUT.toSeconds();

    @Option(
            names = "--heartbeat-timeout",
            paramLabel = "DURATION",
            description = "how long a rank may send nothing, not even a heartbeat, before it is declared dead and "
                    + "excluded from the job (the ranks beat at a sixth of it), as COLLECTIVES_HEARTBEAT_TIMEOUT says "
                    + "to the ranks: 6, 6s, 500ms, 2m or PT6S; default: COLLECTIVES_HEARTBEAT_TIMEOUT, else 1.5 s")
    void heartbeatTimeout(String text) {
        try {
            heartbeatTimeout =
                    Bootstrap.builder().option(HEARTBEAT_TIMEOUT, text).build().heartbeatTimeout();
        } catch (BootstrapException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--heartbeat-timeout takes a positive duration (6, 6s, 500ms, 2m, PT6S), not '" + text + "'");
        }
    }

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help, and exit")
    boolean help;

    RendezvousCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws InterruptedException {
        RendezvousEndpoint endpoint = RendezvousEndpoint.tcp(host, port);
        try (RendezvousServer server = RendezvousServer.start(
                endpoint, ranks, token(), Duration.ofSeconds(timeoutSeconds), heartbeatTimeout())) {
            out.println("rendezvous: serving a job of " + ranks + " ranks at " + endpoint + ", heartbeat timeout "
                    + Settings.formatDuration(server.heartbeatTimeout()));
            out.flush();
            Optional<String> failure = server.awaitEnd();
            List<String> deaths = server.deaths();
            if (failure.isPresent()) {
                out.println("rendezvous: the job failed: " + failure.get());
                return Runner.FAILED;
            }
            out.println("rendezvous: the job is over: every rank left"
                    + (deaths.isEmpty() ? "" : " or died; the deaths on the way: " + String.join("; ", deaths)));
            return Runner.PASSED;
        }
    }

    /** --heartbeat-timeout, else COLLECTIVES_HEARTBEAT_TIMEOUT read as the ranks read it, else their default. */
    private Duration heartbeatTimeout() {
        if (heartbeatTimeout != null) {
            return heartbeatTimeout;
        }
        String variable = Bootstrap.optionVariable(HEARTBEAT_TIMEOUT);
        String value = System.getenv(variable);
        return Bootstrap.builder()
                .environment(value == null ? Map.of() : Map.of(variable, value))
                .build()
                .heartbeatTimeout();
    }

    private String token() {
        if (tokenFile != null) {
            try {
                return Files.readString(tokenFile, StandardCharsets.UTF_8).trim();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the job token from " + tokenFile, e);
            }
        }
        String token = System.getenv("COLLECTIVES_JOB_TOKEN");
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException(
                    "no job token: set COLLECTIVES_JOB_TOKEN to the ranks' token, or pass --token-file");
        }
        return token;
    }
}
