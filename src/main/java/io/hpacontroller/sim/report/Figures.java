package io.hpacontroller.sim.report;

import io.hpacontroller.sim.HpaSummary;

/** The summary figures as text, shared by the console summary and the report's table. */
final class Figures {

    static final String[] COLUMNS = {"HPA", "first scale-up after load rise", "capacity covers demand after",
            "overload", "replica-seconds", "replica changes", "peak replicas", "final replicas", "syncs with error"};

    private Figures() {
    }

    static String[] row(HpaSummary h) {
        return new String[] {
                h.hpa(),
                h.firstScaleUpMillis() < 0 ? "never" : duration(h.firstScaleUpMillis()),
                !h.capacityKnown() ? "n/a (no capacity)" : h.coveredMillis() < 0 ? "never" : duration(h.coveredMillis()),
                !h.capacityKnown() ? "n/a (no capacity)" : duration(h.overloadMillis()),
                Long.toString(Math.round(h.replicaSeconds())),
                Integer.toString(h.replicaChanges()),
                Integer.toString(h.peakReplicas()),
                Integer.toString(h.finalReplicas()),
                h.syncsWithError() + " of " + h.syncs(),
        };
    }

    /** "26s", "5m", "1h30m", "7d" (seconds with decimals when needed). */
    static String duration(long millis) {
        if (millis < 60_000 || millis % 1000 != 0) {
            return Csv.seconds(millis) + "s";
        }
        long s = millis / 1000;
        StringBuilder b = new StringBuilder();
        long d = s / 86400;
        long h = s % 86400 / 3600;
        long m = s % 3600 / 60;
        long sec = s % 60;
        if (d > 0) {
            b.append(d).append('d');
        }
        if (h > 0) {
            b.append(h).append('h');
        }
        if (m > 0) {
            b.append(m).append('m');
        }
        if (sec > 0) {
            b.append(sec).append('s');
        }
        return b.toString();
    }
}
