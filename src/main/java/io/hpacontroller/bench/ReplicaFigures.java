package io.hpacontroller.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of {@code bench --replicas N}: each replica's share of the steady window (HPAs owned, reconciles, CPU),
 * the totals, and each replica's CPU per reconcile against a single replica's (the {@code --baseline} phase).
 */
final class ReplicaFigures {

    /** How far a replica's CPU per reconcile may exceed a single replica's (issue 37: within 15 %). */
    static final double WITHIN = 0.15;

    private ReplicaFigures() {
    }

    /**
     * One replica over the steady window.
     *
     * @param ownedHpas    the HPAs it syncs at the end ({@code hpa_controller_owned_hpas})
     * @param reconciles   its reconciles in the window ({@code horizontal_pod_autoscaler_controller_reconciliations_total})
     * @param cpuSeconds   its process's CPU in the window
     */
    record Replica(long ownedHpas, double reconciles, double cpuSeconds) {

        double cpuMsPerReconcile() {
            return reconciles == 0 ? Double.NaN : cpuSeconds * 1000 / reconciles;
        }
    }

    /** One replica's share of the steady window of {@code seconds}: HPAs owned, reconciles per second, CPU per reconcile. */
    static Map<String, String> share(Replica r, double seconds) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("owned_hpas", Long.toString(r.ownedHpas()));
        f.put("steady_reconciles_per_second", String.format("%.1f", r.reconciles() / seconds));
        f.put("steady_cpu_seconds", String.format("%.2f", r.cpuSeconds()));
        f.put("steady_cpu_ms_per_reconcile", StartUpFigures.perReconcile(r.cpuSeconds() * 1000, r.reconciles()));
        return f;
    }

    /** The totals of the steady window of {@code seconds}: HPAs owned, reconciles per second and CPU per reconcile of all replicas. */
    static Map<String, String> totals(List<Replica> replicas, double seconds) {
        double reconciles = replicas.stream().mapToDouble(Replica::reconciles).sum();
        Map<String, String> f = new LinkedHashMap<>();
        f.put("owned_hpas_total", Long.toString(replicas.stream().mapToLong(Replica::ownedHpas).sum()));
        f.put("steady_seconds", String.format("%.1f", seconds));
        f.put("steady_reconciles_per_second", String.format("%.1f", reconciles / seconds));
        f.put("steady_cpu_ms_per_reconcile", StartUpFigures.perReconcile(replicas.stream().mapToDouble(Replica::cpuSeconds).sum() * 1000, reconciles));
        return f;
    }

    static String prefix(int replica) {
        return "replica_" + (replica + 1) + ".";
    }

    /**
     * Each replica's CPU per reconcile against a single replica's, and whether every one is within {@link #WITHIN} above
     * it, e.g. {@code replica_1 +3.1 %, replica_2 -0.4 %, replica_3 +6.0 % (within 15 %: yes)}; "n/a" without figures.
     */
    static String againstBaseline(List<Replica> replicas, double baselineMsPerReconcile) {
        if (replicas.isEmpty() || !(baselineMsPerReconcile > 0)) {
            return "n/a";
        }
        StringBuilder sb = new StringBuilder();
        boolean within = true;
        for (int i = 0; i < replicas.size(); i++) {
            double ms = replicas.get(i).cpuMsPerReconcile();
            if (Double.isNaN(ms)) {
                return "n/a (replica_" + (i + 1) + " made no reconcile in the steady window)";
            }
            double change = ms / baselineMsPerReconcile - 1;
            within &= change <= WITHIN;
            sb.append(i == 0 ? "" : ", ").append("replica_").append(i + 1).append(String.format(" %+.1f %%", change * 100));
        }
        return sb.append(String.format(" (within %.0f %%: %s)", WITHIN * 100, within ? "yes" : "no")).toString();
    }
}
