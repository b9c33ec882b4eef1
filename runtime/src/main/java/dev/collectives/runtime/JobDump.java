package dev.collectives.runtime;

import dev.collectives.runtime.bootstrap.member.DumpClient;
import dev.collectives.runtime.bootstrap.wire.Dumps;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A dump on demand: asks a job's rendezvous server (TCP) that every live rank write its flight records now, with the
 * reason "asked", without waiting for a timeout or ending the job; {@code trace} reads the files. Each rank answers
 * with the files its process wrote; a rank that is gone, or does not answer within the server's heartbeat timeout,
 * is reported with why. The request proves it holds the job's token, as a rank does: the server refuses any other.
 */
public final class JobDump {
    private JobDump() {}

    /** How a rank answered. */
    public enum Outcome {
        /** It wrote its process's records (none where no communicator of its process keeps one to write). */
        WROTE,
        /** It is gone: dead, excluded, left, or never joined. */
        GONE,
        /** It is a member, but did not answer in time. */
        NO_ANSWER
    }

    /**
     * One rank's answer.
     *
     * @param rank    the rank
     * @param outcome how it answered
     * @param files   the files it wrote
     * @param why     why it wrote none, or did not answer; empty where it wrote
     */
    public record Answer(int rank, Outcome outcome, List<Path> files, String why) {
        public Answer {
            files = List.copyOf(files);
        }

        /** "rank 0 wrote /tmp/flight-….json", "rank 1 did not answer: no answer within 1.5 s …". */
        @Override
        public String toString() {
            return switch (outcome) {
                case WROTE ->
                    files.isEmpty()
                            ? "rank " + rank + " answered, writing nothing: " + why
                            : "rank " + rank + " wrote "
                                    + String.join(
                                            ", ",
                                            files.stream().map(Path::toString).toList());
                case GONE -> "rank " + rank + " is gone: " + why;
                case NO_ANSWER -> "rank " + rank + " did not answer: " + why;
            };
        }
    }

    /**
     * Asks the job at {@code endpoint}, with the job token and the bootstrap timeout as a rank that joins takes them
     * ({@code COLLECTIVES_JOB_TOKEN}, {@code COLLECTIVES_BOOTSTRAP_TIMEOUT}), that every live rank write its records
     * into {@code directory}, or each into its own ({@code COLLECTIVES_FLIGHT_RECORDER_DIR}) where empty.
     */
    public static List<Answer> ask(RendezvousEndpoint endpoint, Optional<Path> directory) {
        Bootstrap settings = Bootstrap.fromEnvironment();
        String token = settings.jobToken()
                .orElseThrow(() -> BootstrapException.settings(
                        -1, "no job token: set COLLECTIVES_JOB_TOKEN to the job's secret, as its ranks have it"));
        return ask(endpoint, token, directory, settings.timeout());
    }

    /**
     * Asks the job at {@code endpoint}, proving {@code jobToken}, that every live rank write its records into
     * {@code directory}, or each into its own where empty; connecting within {@code timeout}.
     */
    public static List<Answer> ask(
            RendezvousEndpoint endpoint, String jobToken, Optional<Path> directory, Duration timeout) {
        if (endpoint.kind() != RendezvousEndpoint.Kind.TCP) {
            throw BootstrapException.settings(-1, "a dump asks a tcp:// rendezvous, not " + endpoint);
        }
        String asked = directory.map(d -> d.toAbsolutePath().toString()).orElse("");
        return DumpClient.ask(endpoint, jobToken, asked, timeout).stream()
                .map(JobDump::answer)
                .toList();
    }

    private static Answer answer(Dumps.Answer answer) {
        return new Answer(
                answer.rank(),
                Outcome.valueOf(answer.outcome().name()),
                answer.files().stream().map(Path::of).toList(),
                answer.why());
    }
}
