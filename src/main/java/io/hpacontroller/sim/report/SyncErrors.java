package io.hpacontroller.sim.report;

import io.hpacontroller.sim.HpaSummary;
import io.hpacontroller.sim.TimelineRow;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The errors one spec's syncs met, for the report ({@code div.sync-errors}): how many syncs ended with an error,
 * then each distinct error (its reason and message) with how often, first and last it happened.
 */
final class SyncErrors {

    /** Distinct errors listed; the rest are counted. */
    static final int LISTED = 10;

    private SyncErrors() {
    }

    private static final class Seen {
        final String reason;
        final String message;
        final long first;
        long last;
        int syncs;

        Seen(String reason, String message, long first) {
            this.reason = reason;
            this.message = message;
            this.first = first;
        }
    }

    static void render(StringBuilder b, HpaSummary h, List<TimelineRow> rows) {
        Map<String, Seen> seen = new LinkedHashMap<>();
        for (TimelineRow r : rows) {
            String reason = r.trace().errorReason();
            if (reason == null) {
                continue;
            }
            String message = r.trace().errorMessage() == null ? "" : r.trace().errorMessage();
            Seen s = seen.computeIfAbsent(reason + '\n' + message, k -> new Seen(reason, message, r.timeMillis()));
            s.last = r.timeMillis();
            s.syncs++;
        }
        if (seen.isEmpty()) {
            return;
        }
        b.append("<div class=\"sync-errors\" data-hpa=\"").append(Html.escape(h.hpa())).append("\">\n<p class=\"bad\">")
                .append(h.syncsWithError()).append(" of ").append(h.syncs()).append(" syncs ended with an error:</p>\n<ul>\n");
        int listed = 0;
        for (Seen s : seen.values()) {
            if (++listed > LISTED) {
                break;
            }
            b.append("<li><b>").append(Html.escape(s.reason)).append("</b>: <span class=\"error-message\">").append(Html.escape(s.message))
                    .append("</span> (").append(s.syncs).append(s.syncs == 1 ? " sync, at " : " syncs, first at ")
                    .append(Figures.duration(s.first));
            if (s.syncs > 1) {
                b.append(", last at ").append(Figures.duration(s.last));
            }
            b.append(")</li>\n");
        }
        if (seen.size() > LISTED) {
            b.append("<li>... and ").append(seen.size() - LISTED).append(" more distinct errors (see timeline.csv)</li>\n");
        }
        b.append("</ul>\n</div>\n");
    }
}
