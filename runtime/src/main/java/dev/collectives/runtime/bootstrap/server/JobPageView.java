package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Progress;
import java.util.List;

/**
 * The part of the job's page that updates itself: the job as a {@link JobView.Snapshot} says, in HTML. Every text
 * that came from outside (hosts, reasons, refused claims) is escaped.
 */
final class JobPageView {
    private final StringBuilder out = new StringBuilder();

    private JobPageView() {}

    /** {@code job} as HTML, to go inside the page. */
    static String of(JobView.Snapshot job) {
        JobPageView view = new JobPageView();
        view.summary(job);
        view.verdict(job);
        view.ranks(job);
        view.deaths(job);
        view.recoveries(job);
        view.refused(job);
        return view.out.toString();
    }

    private void summary(JobView.Snapshot job) {
        out.append("<p id=\"summary\">")
                .append(escape(job.server()))
                .append(": ")
                .append(job.size())
                .append(job.size() == 1 ? " rank" : " ranks")
                .append(", up ")
                .append(JobPage.duration(job.age()));
        if (job.ended() != null) {
            out.append(". <strong id=\"ended\">The job ended: ")
                    .append(escape(job.ended()))
                    .append("</strong>");
        }
        out.append("</p>\n");
    }

    private void verdict(JobView.Snapshot job) {
        boolean hangs = !job.verdicts().isEmpty();
        out.append("<section id=\"verdict\" class=\"")
                .append(hangs ? "hang" : "fine")
                .append("\"><h2>Hang verdict</h2>");
        if (hangs) {
            job.verdicts()
                    .forEach(v -> out.append("<p class=\"verdict\">")
                            .append(escape(v.describe()))
                            .append("</p>"));
        } else {
            out.append("<p>No rank waits in what another never enqueued (a verdict comes after ")
                    .append(JobPage.duration(job.hangVerdictAfter()))
                    .append(" of waiting).</p>");
        }
        out.append("</section>\n");
    }

    private void ranks(JobView.Snapshot job) {
        out.append("<section><h2>Ranks</h2><table id=\"ranks\"><thead><tr><th>rank</th><th>phase</th><th>host</th>"
                + "<th>heartbeat age</th><th>communicator</th><th>last enqueued</th><th>last completed</th>"
                + "<th>waits in</th></tr></thead><tbody>");
        for (JobView.RankRow rank : job.ranks()) {
            List<Progress.Place> places =
                    rank.places().isEmpty() ? List.of(new Progress.Place("", 0, 0, 0, "")) : rank.places();
            for (int i = 0; i < places.size(); i++) {
                Progress.Place place = places.get(i);
                out.append("<tr class=\"")
                        .append(cssClass(rank.phase()))
                        .append("\"")
                        .append(i == 0 ? " id=\"rank-" + rank.rank() + "\"" : "")
                        .append(">");
                cell(String.valueOf(rank.rank()));
                cell(rank.phase());
                cell(rank.host());
                cell(rank.heartbeatAge() == null ? "" : JobPage.duration(rank.heartbeatAge()));
                if (place.communicator().isEmpty()) {
                    out.append("<td colspan=\"4\">no progress reported</td>");
                } else {
                    cell(place.communicator() + " (" + place.size() + " ranks)");
                    cell(place.enqueued() == 0 ? "none" : "#" + place.enqueued());
                    cell(place.completed() == 0 ? "none" : "#" + place.completed());
                    // a rank gone waits no more: its last place stays, for where it stopped
                    boolean waits = place.pending() && rank.phase().equals("running");
                    cell(waits ? "#" + (place.completed() + 1) + " " + place.waitingIn() : "");
                }
                out.append("</tr>");
            }
        }
        out.append("</tbody></table></section>\n");
    }

    private void deaths(JobView.Snapshot job) {
        out.append("<section><h2>Deaths</h2>");
        if (job.deaths().isEmpty()) {
            out.append("<p>None.</p>");
        } else {
            out.append(
                    "<table id=\"deaths\"><thead><tr><th>at</th><th>rank</th><th>how</th><th>why</th></tr></thead><tbody>");
            for (JobView.DeathRow death : job.deaths()) {
                out.append("<tr>");
                cell(JobPage.duration(death.at()));
                cell(String.valueOf(death.rank()));
                cell(death.fate());
                cell(death.why());
                out.append("</tr>");
            }
            out.append("</tbody></table>");
        }
        out.append("</section>\n");
    }

    private void recoveries(JobView.Snapshot job) {
        out.append("<section id=\"recoveries\"><h2>Recoveries</h2>");
        if (job.recoveries().isEmpty()) {
            out.append("<p>None.</p>");
        }
        for (JobView.RecoveryRow recovery : job.recoveries()) {
            out.append("<div class=\"recovery\"><p>At ")
                    .append(JobPage.duration(recovery.at()))
                    .append(", ")
                    .append(escape(recovery.cause()))
                    .append(recovery.done() ? "" : " (under way)")
                    .append("</p><ol>");
            for (JobView.PhaseRow phase : recovery.phases()) {
                out.append("<li>+")
                        .append(JobPage.duration(phase.after()))
                        .append(": ")
                        .append(escape(phase.what()))
                        .append("</li>");
            }
            out.append("</ol></div>");
        }
        out.append("</section>\n");
    }

    private void refused(JobView.Snapshot job) {
        out.append("<section id=\"refused\"><h2>Refused claims</h2>");
        if (job.refused().isEmpty()) {
            out.append("<p>None.</p>");
        } else {
            out.append("<ul>");
            job.refused()
                    .forEach(r -> out.append("<li>At ")
                            .append(JobPage.duration(r.at()))
                            .append(": ")
                            .append(escape(r.why()))
                            .append("</li>"));
            out.append("</ul>");
            if (job.refusedEver() > job.refused().size()) {
                out.append("<p>").append(job.refusedEver()).append(" in all; the last shown.</p>");
            }
        }
        out.append("</section>\n");
    }

    private void cell(String text) {
        out.append("<td>").append(escape(text)).append("</td>");
    }

    private static String cssClass(String phase) {
        return phase.replace(' ', '-');
    }

    /** {@code text} safe inside HTML. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
