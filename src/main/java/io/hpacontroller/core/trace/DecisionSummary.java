package io.hpacontroller.core.trace;

import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.Rebalancing;
import io.hpacontroller.core.calc.ToleranceVerdict;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.RateLimit;
import io.hpacontroller.core.normalize.Stabilization;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * A {@link DecisionTrace} in words: what the sync did, then the one thing that decided it, e.g. "holding at
 * 8: the 5m scale-down window keeps the recommendation of 8 made 2m10s ago; without it: 3". Only reads the
 * trace; decides nothing.
 */
public final class DecisionSummary {

    private DecisionSummary() {
    }

    /** One sentence: the action, then why. */
    public static String of(DecisionTrace t) {
        if (t.controls().suspended()) {
            return "suspended (mode Suspended): no metrics are read and nothing is written but the condition";
        }
        if (t.desiredReplicas() < 0 || t.currentReplicas() < 0) {
            return (t.controls().preview() ? "preview, " : "") + noDecision(t);
        }
        String why = why(t) + notes(t);
        if (t.action() == Action.NONE) {
            return (t.controls().preview() ? "preview, " : "") + "holding at " + t.currentReplicas() + ": " + why;
        }
        String move = (t.action() == Action.SCALE_UP ? "scaling up" : "scaling down") + " from " + t.currentReplicas() + " to " + t.desiredReplicas();
        if (t.controls().preview()) {
            return "preview, would be " + move + " (mode Preview: the scale is not written): " + why;
        }
        if (!t.rescaled()) {
            return "tried " + move + ", but the scale write failed (" + t.errorMessage() + "): " + why;
        }
        return move + ": " + why;
    }

    /** What else the sync met: metrics that failed without blocking, a status write that failed, zero. */
    private static String notes(DecisionTrace t) {
        StringBuilder sb = new StringBuilder();
        String failed = failedMetrics(t);
        if (!failed.isEmpty()) {
            sb.append("; ").append(failed).append(" (a failed metric does not block a scale-up)");
        }
        for (int i = 0; i < t.metrics().size(); i++) {
            MetricTrace m = t.metrics().get(i);
            if (m.fallback() && i != t.selectedMetric()) {
                sb.append("; ").append(fallback(m, t.time()));
            }
        }
        if ("FailedUpdateStatus".equals(t.errorReason())) {
            sb.append("; ").append(t.errorMessage());
        }
        if (DecisionTrace.SCALED_TO_ZERO.equals(t.scaleToZero())) {
            sb.append("; scaled to zero: an Object or External metric wakes it");
        }
        if (t.schedule().raised()) {
            sb.append("; minReplicas ").append(t.minReplicas()).append(" (spec: ").append(t.schedule().specMinReplicas()).append(") from ")
                    .append(t.schedule().activeRule());
        }
        PredictionTrace p = t.prediction();
        if (p.raised()) {
            sb.append("; the predicted load proposes ").append(p.replicas()).append(", above the metrics' ").append(t.rawDesiredReplicas())
                    .append(" (").append(p.setting()).append(")");
        }
        for (PredictionTrace.PredictedMetric m : p.metrics()) {
            if (m.discarded()) {
                sb.append("; forecast of ").append(m.metric()).append(" discarded: ").append(m.message());
            }
        }
        return sb.toString();
    }

    private static String noDecision(DecisionTrace t) {
        if (DecisionTrace.ALL_METRICS_FAILED.equals(t.metricsVerdict())) {
            return "holding at " + t.currentReplicas() + ": every metric failed: " + failedMetrics(t);
        }
        if (DecisionTrace.FAILED_METRIC_BLOCKS_SCALE_DOWN.equals(t.metricsVerdict())) {
            return "holding at " + t.currentReplicas() + ": the other metrics recommend " + t.rawDesiredReplicas() + ", but "
                    + failedMetrics(t) + ", and a failed metric blocks a scale-down";
        }
        String at = t.currentReplicas() < 0 ? "no decision" : "holding at " + t.currentReplicas();
        return at + ": " + (t.errorReason() == null ? "" : t.errorReason() + ": ") + t.errorMessage();
    }

    /** The one thing that decided the count. */
    private static String why(DecisionTrace t) {
        if (DecisionTrace.SCALING_DISABLED_AT_ZERO.equals(t.rescaleRule())) {
            return "the target is at 0 replicas and this HPA did not scale it there, so scaling is disabled";
        }
        if (DecisionTrace.ABOVE_MAX_REPLICAS.equals(t.rescaleRule())) {
            return "the target has more replicas than maxReplicas " + t.maxReplicas() + " (the metrics are not consulted)";
        }
        if (DecisionTrace.BELOW_MIN_REPLICAS.equals(t.rescaleRule())) {
            return "the target has fewer replicas than minReplicas " + t.minReplicas() + " (the metrics are not consulted)";
        }
        Normalization n = t.normalization();
        String metrics = recommendation(t);
        if (n == null) {
            return metrics;
        }
        int withinBounds = withinBounds(t, n.recommendation());
        Stabilization s = n.stabilization();
        if (s != null) {
            return window(s) + "; without it: " + withinBounds + limits(t, n, false);
        }
        String limits = limits(t, n, true);
        return limits.isEmpty() ? metrics : limits.substring(2) + "; " + metrics;
    }

    private static String window(Stabilization s) {
        return "the " + duration(s.windowSeconds() * 1000L) + (Stabilization.SCALE_DOWN.equals(s.window()) ? " scale-down" : " scale-up")
                + " window keeps the recommendation of " + s.keptReplicas() + " made " + duration(s.ageMillis()) + " ago";
    }

    /**
     * The reason of a scale whose direction the metrics' recommendation did not ask for, where upstream's is empty (or
     * the metrics' "All metrics below target" on a scale up): a count set by hand below what the legacy scale-down
     * window keeps is raised back by the window, which the reason then names.
     */
    public static String normalizedReason(Normalization n) {
        return n.stabilization() != null ? window(n.stabilization())
                : "the recommendation of " + n.recommendation() + " normalized to " + n.replicas() + " by " + String.join(";", n.constraintsApplied());
    }

    /** A count brought into the trace's [minReplicas, maxReplicas]: what a recommendation gives without the window and limits. */
    public static int withinBounds(DecisionTrace t, int replicas) {
        return Math.max(t.minReplicas(), Math.min(t.maxReplicas(), replicas));
    }

    /** The rate limit and min/max that changed the count, each as a clause ("; ..."). */
    private static String limits(DecisionTrace t, Normalization n, boolean first) {
        StringBuilder sb = new StringBuilder();
        RateLimit r = n.rateLimit();
        if (r != null && r.bound()) {
            sb.append("; the scale-").append(RateLimit.UP.equals(r.direction()) ? "up" : "down").append(" limit ");
            if (RateLimit.LEGACY.equals(r.rule())) {
                sb.append("max(2 x ").append(t.currentReplicas()).append(", 4) = ").append(r.limit());
            } else if (r.policyType() == null) {
                sb.append("(selectPolicy ").append(r.selectPolicy()).append(") keeps ").append(r.limit());
            } else {
                sb.append("(").append(r.policyType()).append(' ').append(r.policyValue()).append(" per ").append(duration(r.periodSeconds() * 1000L))
                        .append(", selectPolicy ").append(r.selectPolicy()).append(", ").append(r.eventsInPeriod()).append(" scale events in the period")
                        .append(") allows ").append(r.limit());
            }
        }
        if (n.constraintsApplied().contains(Normalization.MAX_REPLICAS)) {
            sb.append("; capped at maxReplicas ").append(t.maxReplicas());
        }
        if (n.constraintsApplied().contains(Normalization.MIN_REPLICAS)) {
            sb.append(n.wokeFromZero() ? "; woken from zero to minReplicas " : "; raised to minReplicas ").append(t.minReplicas());
        }
        if (first && sb.length() > 0) {
            sb.append(" (the metrics recommend ").append(n.recommendation()).append(")");
        }
        return sb.toString();
    }

    /** What the winning metric says: its value against the target, the tolerance verdict, the proposal. */
    private static String recommendation(DecisionTrace t) {
        if (t.selectedMetric() < 0) {
            return "the metrics recommend " + t.rawDesiredReplicas();
        }
        MetricTrace m = t.metrics().get(t.selectedMetric());
        String others = t.metrics().size() > 1 ? " (the highest of " + t.metrics().size() + " metrics)" : "";
        if (m.fallback()) {
            return fallback(m, t.time()) + others;
        }
        Proposal p = m.calculation();
        String value = m.metric() + " " + value(m, m.current()) + " against a target of " + value(m, m.target());
        ToleranceVerdict v = p == null ? null : p.tolerance();
        if (v != null && v.within()) {
            Rebalancing r = p.rebalancing();
            String ratio = r != null ? "with " + r.pods() + " pods counted (missing or unready filled in) the ratio is " + number(v.ratio())
                    : "the ratio " + number(v.ratio());
            return value + ": " + ratio + " is within the tolerance of " + number(v.tolerance()) + " (" + v.source() + ")" + others;
        }
        if (p != null && p.rebalancing() != null && p.rebalancing().held() != null) {
            return value + ": " + p.rebalancing().replicas() + " replicas once missing or unready pods are counted, but the "
                    + p.rebalancing().held() + ", so no change" + others;
        }
        if (p != null && p.rebalancing() != null && p.rawReplicas() != m.replicas()) {
            return value + " recommends " + m.replicas() + " once " + p.rebalancing().pods() + " pods are counted, missing or unready ones filled in"
                    + " (the ready pods alone: " + p.rawReplicas() + ")" + others;
        }
        return value + " recommends " + m.replicas() + others;
    }

    /** A metric in fallback: "External metric queue_depth has failed since ... (2m10s): its fallback of 6 replicas". */
    private static String fallback(MetricTrace m, long now) {
        return m.described() + " has failed for " + duration(now - m.failingSince()) + " (" + m.errorMessage() + "), so it proposes the fallback of "
                + m.replicas() + " replicas";
    }

    private static String failedMetrics(DecisionTrace t) {
        StringBuilder sb = new StringBuilder();
        for (MetricTrace m : t.metrics()) {
            if (m.failed() && !m.fallback()) {
                sb.append(sb.length() == 0 ? "" : "; ").append(m.name() == null ? m.type() : m.type() + " " + m.name())
                        .append(" failed (").append(m.errorMessage()).append(")");
                if (m.failingSince() > 0) {
                    sb.append(", failing for ").append(duration(t.time() - m.failingSince())).append(" of the ")
                            .append(duration(t.controls().fallbackAfterMillis())).append(" before its fallback");
                }
            }
        }
        return sb.toString();
    }

    private static String value(MetricTrace m, double v) {
        return "Utilization".equals(m.targetType()) ? number(v) + "%" : number(v);
    }

    /** A number without trailing zeros, at most 3 decimals. */
    public static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return String.valueOf(v);
        }
        return BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }

    /** "5m", "2m10s", "1h", "45s"; under 10 s to the millisecond ("0.25s"). */
    public static String duration(long millis) {
        if (millis <= 0) {
            return "0s";
        }
        if (millis < 10_000 && millis % 1000 != 0) {
            return number(millis / 1000.0) + "s";
        }
        return GoDuration.compact(Duration.ofSeconds(Math.round(millis / 1000.0)));
    }
}
