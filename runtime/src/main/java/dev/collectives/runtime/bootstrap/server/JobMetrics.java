package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Progress;
import java.util.Locale;

/**
 * A job's metrics in the Prometheus text format (version 0.0.4), named in the style of NCCL's Inspector: per rank and
 * communicator the ops enqueued and completed, per rank its heartbeat's age and its deaths, and for the job its size,
 * its recoveries, the claims it turned away and its hang verdicts.
 */
public final class JobMetrics {
    /** The content type Prometheus asks for. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private JobMetrics() {}

    /** {@code job} as Prometheus reads it. */
    static String of(JobView.Snapshot job) {
        StringBuilder out = new StringBuilder();
        header(out, "collectives_ops_enqueued_total", "counter", "Entries a rank enqueued on a communicator.");
        job.ranks()
                .forEach(r -> r.places()
                        .forEach(
                                p -> sample(out, "collectives_ops_enqueued_total", labels(r.rank(), p), p.enqueued())));
        header(out, "collectives_ops_completed_total", "counter", "Entries a rank completed on a communicator.");
        job.ranks()
                .forEach(r -> r.places()
                        .forEach(p ->
                                sample(out, "collectives_ops_completed_total", labels(r.rank(), p), p.completed())));
        header(out, "collectives_heartbeat_age_seconds", "gauge", "Seconds since a running rank's last heartbeat.");
        job.ranks().stream()
                .filter(r -> r.heartbeatAge() != null)
                .forEach(r -> sample(
                        out,
                        "collectives_heartbeat_age_seconds",
                        rank(r.rank()),
                        r.heartbeatAge().toNanos() / 1e9));
        header(out, "collectives_rank_deaths_total", "counter", "Times a rank died or was excluded.");
        job.ranks().forEach(r -> sample(out, "collectives_rank_deaths_total", rank(r.rank()), r.deaths()));
        header(out, "collectives_job_ranks", "gauge", "The job's size.");
        sample(out, "collectives_job_ranks", "", job.size());
        header(
                out,
                "collectives_recoveries_total",
                "counter",
                "Recoveries the job began (after a death, or a growth).");
        sample(out, "collectives_recoveries_total", "", job.recoveriesEver());
        header(out, "collectives_refused_claims_total", "counter", "Claims to join the job that were turned away.");
        sample(out, "collectives_refused_claims_total", "", job.refusedEver());
        header(
                out,
                "collectives_hang_verdicts",
                "gauge",
                "Communicators where ranks wait in what another never enqueued.");
        sample(out, "collectives_hang_verdicts", "", job.verdicts().size());
        return out.toString();
    }

    private static void header(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static String rank(int rank) {
        return "{rank=\"" + rank + "\"}";
    }

    private static String labels(int rank, Progress.Place place) {
        return "{rank=\"" + rank + "\",communicator=\"" + place.communicator() + "\",size=\"" + place.size() + "\"}";
    }

    private static void sample(StringBuilder out, String name, String labels, double value) {
        out.append(name).append(labels).append(' ');
        out.append(
                value == Math.rint(value) ? String.valueOf((long) value) : String.format(Locale.ROOT, "%.3f", value));
        out.append('\n');
    }
}
