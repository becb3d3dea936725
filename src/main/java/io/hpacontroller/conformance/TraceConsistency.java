package io.hpacontroller.conformance;

import io.hpacontroller.core.calc.PodCounts;
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.Rebalancing;
import io.hpacontroller.core.calc.ToleranceVerdict;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.RateLimit;
import io.hpacontroller.core.normalize.Stabilization;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks that a decision trace says what the decision did: the final count is the count written (or kept),
 * the winning metric's proposal is the raw recommendation, a stabilization entry exists exactly when the
 * window changed the count, a rate limit named as bound did bind, a min/max clamp named did clamp, and a
 * count that nothing constrained is the recommendation. Every conformance case runs through it, so the trace
 * is checked against every decision upstream's cases describe.
 */
public final class TraceConsistency {

    private final List<String> problems = new ArrayList<>();

    private TraceConsistency() {
    }

    private void expect(boolean ok, String problem) {
        if (!ok) {
            problems.add("trace: " + problem);
        }
    }

    /** The problems of one sync's trace, given what the sync wrote. */
    public static List<String> ofSync(ReconcileOutcome o, List<Integer> scaleWrites, int podCount) {
        TraceConsistency c = new TraceConsistency();
        c.sync(o, scaleWrites, podCount);
        return c.problems;
    }

    /** The problems of one metric's trace. */
    public static List<String> ofMetric(MetricTrace m, int specReplicas, int podCount) {
        TraceConsistency c = new TraceConsistency();
        c.metric(m, specReplicas, podCount);
        return c.problems;
    }

    /** The problems of one normalization. */
    public static List<String> ofNormalization(Normalization n, int currentReplicas, int minReplicas, int maxReplicas) {
        TraceConsistency c = new TraceConsistency();
        c.normalization(n, currentReplicas, minReplicas, maxReplicas);
        return c.problems;
    }

    private void sync(ReconcileOutcome o, List<Integer> scaleWrites, int podCount) {
        DecisionTrace t = o.trace();
        expect(DecisionSummary.of(t) != null, "no summary");
        int written = scaleWrites.isEmpty() ? -1 : scaleWrites.get(scaleWrites.size() - 1);
        expect(t.rescaled() == !scaleWrites.isEmpty(), "rescaled is " + t.rescaled() + " but the scale writes were " + scaleWrites);
        if (t.rescaled()) {
            expect(t.desiredReplicas() == written, "desiredReplicas " + t.desiredReplicas() + " but the scale was written to " + written);
            expect(t.action() == (written > t.currentReplicas() ? Action.SCALE_UP : Action.SCALE_DOWN),
                    "action " + t.action() + " for " + t.currentReplicas() + " -> " + written);
        } else if (t.controls().preview() && t.desiredReplicas() >= 0) {
            Action would = t.desiredReplicas() > t.currentReplicas() ? Action.SCALE_UP
                    : t.desiredReplicas() < t.currentReplicas() ? Action.SCALE_DOWN : Action.NONE;
            expect(t.action() == would, "preview: action " + t.action() + " for " + t.currentReplicas() + " -> " + t.desiredReplicas());
        } else if (t.desiredReplicas() >= 0 && t.error() != ErrorKind.INTERNAL) {
            expect(t.desiredReplicas() == t.currentReplicas(), "no scale written, yet desiredReplicas " + t.desiredReplicas()
                    + " differs from the current " + t.currentReplicas());
            expect(t.action() == Action.NONE, "no scale written, yet the action is " + t.action());
        }
        if (t.controls().suspended()) {
            expect(t.metrics().isEmpty() && t.desiredReplicas() < 0 && !t.rescaled(), "suspended, yet metrics were computed or a count decided");
        }
        if (t.desiredReplicas() >= 0 && o.status() != null && o.status().getDesiredReplicas() != null && t.error() == ErrorKind.NONE) {
            expect(o.status().getDesiredReplicas() == t.desiredReplicas(), "status.desiredReplicas " + o.status().getDesiredReplicas()
                    + " but the trace decided " + t.desiredReplicas());
        }
        expect((t.error() == ErrorKind.NONE) == (t.errorMessage() == null), "error " + t.error() + " with message " + t.errorMessage());

        int highest = -1;
        boolean anyFailed = false;
        for (MetricTrace m : t.metrics()) {
            metric(m, t.currentReplicas(), podCount);
            anyFailed |= !m.proposes();
            if (m.proposes()) {
                highest = Math.max(highest, m.replicas());
            }
            if (m.fallback()) {
                expect(m.replicas() == t.controls().fallbackReplicas() && t.time() - m.failingSince() >= t.controls().fallbackAfterMillis(),
                        "metric " + m.type() + " " + m.name() + " proposes a fallback it is not due (" + m.replicas() + " replicas, failing for "
                                + (t.time() - m.failingSince()) + " ms)");
            } else if (m.failingSince() > 0) {
                expect(t.controls().fallbackReplicas() >= 0 && t.time() - m.failingSince() < t.controls().fallbackAfterMillis(),
                        "metric " + m.type() + " " + m.name() + " has failed long enough for its fallback, yet proposes none");
            }
        }
        expect(t.rawDesiredReplicas() == highest, "rawDesiredReplicas " + t.rawDesiredReplicas() + " but the highest proposal is " + highest);
        if (t.selectedMetric() >= 0) {
            MetricTrace won = t.metrics().get(t.selectedMetric());
            expect(won.proposes() && won.replicas() == t.rawDesiredReplicas(), "the selected metric proposed " + won.replicas()
                    + ", not rawDesiredReplicas " + t.rawDesiredReplicas());
            expect(t.metricsVerdict() == null, "a metric was selected, yet the verdict is " + t.metricsVerdict());
        }
        if (DecisionTrace.FAILED_METRIC_BLOCKS_SCALE_DOWN.equals(t.metricsVerdict())) {
            expect(anyFailed && t.rawDesiredReplicas() < t.currentReplicas() && !t.rescaled(),
                    "a failed metric is said to block a scale-down that was not one");
        }
        if (DecisionTrace.ALL_METRICS_FAILED.equals(t.metricsVerdict())) {
            expect(t.metrics().stream().noneMatch(MetricTrace::proposes) && !t.rescaled(), "not every metric failed");
        }

        Normalization n = t.normalization();
        if (n != null) {
            normalization(n, t.currentReplicas(), t.minReplicas(), t.maxReplicas());
            expect(n.recommendation() == Math.max(0, t.recommendation()), "the normalizer got " + n.recommendation()
                    + ", the metrics (or the prediction above them) recommended " + t.recommendation());
            expect(!t.prediction().raised() || t.prediction().replicas() > t.rawDesiredReplicas(),
                    "the prediction is said to raise " + t.rawDesiredReplicas() + " to " + t.prediction().replicas());
            expect(n.replicas() == t.desiredReplicas(), "normalized to " + n.replicas() + " but decided " + t.desiredReplicas());
            expect(n.constraintsApplied().equals(t.constraintsApplied()), "constraintsApplied differ from the normalization's");
        } else if (t.desiredReplicas() >= 0 && t.rescaleRule() == null) {
            expect(false, "a decision of " + t.desiredReplicas() + " without normalization or rule");
        }
        if (DecisionTrace.ABOVE_MAX_REPLICAS.equals(t.rescaleRule())) {
            expect(t.desiredReplicas() == t.maxReplicas() && t.currentReplicas() > t.maxReplicas(), "the above-max rule did not set maxReplicas");
        }
        if (DecisionTrace.BELOW_MIN_REPLICAS.equals(t.rescaleRule())) {
            expect(t.desiredReplicas() == t.minReplicas() && t.currentReplicas() < t.minReplicas(), "the below-min rule did not set minReplicas");
        }
    }

    private void metric(MetricTrace m, int specReplicas, int podCount) {
        String at = "metric " + m.type() + " " + m.name() + ": ";
        if (m.failed()) {
            expect(m.calculation() == null && (m.replicas() == -1) != m.fallback() && m.errorMessage() != null && m.error() != null,
                    at + "a failed metric with a proposal other than a fallback, or without its error");
            return;
        }
        Proposal p = m.calculation();
        expect(p != null && p.replicas() == m.replicas(), at + "the proposal differs from the calculation's");
        if (p == null) {
            return;
        }
        PodCounts pods = p.pods();
        if (pods != null) {
            expect(pods.ready() + pods.unready() + pods.missing() + pods.ignored() == podCount,
                    at + "pod groups " + pods + " do not add up to the " + podCount + " pods");
        }
        ToleranceVerdict v = p.tolerance();
        Rebalancing r = p.rebalancing();
        if (v != null) {
            double ratio = r == null ? p.usageRatio() : r.ratio();
            // the same ratio, NaN included (0 over 0 replicas: upstream's ratio too)
            expect(Double.compare(v.ratio(), ratio) == 0, at + "the tolerance verdict looked at " + v.ratio() + ", not at the ratio " + ratio);
            // the core's band with the verdict's tolerance on both sides: only its direction's side can matter
            expect(v.within() == Tolerances.of(v.tolerance()).isWithin(v.ratio()), at + "the verdict " + v + " contradicts its own tolerance");
            if (v.within() && (pods != null || "Value".equals(m.targetType()))) {
                expect(p.replicas() == specReplicas, at + "inside the tolerance, yet proposed " + p.replicas() + " at " + specReplicas);
            }
        }
        if (r != null) {
            expect(r.held() == null ? p.replicas() == r.replicas() : p.replicas() == specReplicas,
                    at + "the rebalancing says held=" + r.held() + " but the proposal is " + p.replicas());
            expect(v != null && (Rebalancing.WITHIN_TOLERANCE.equals(r.held())) == v.within(), at + "held within tolerance disagrees with the verdict");
        } else if (v != null && !v.within() && p.rawReplicas() >= 0) {
            expect(p.replicas() == p.rawReplicas(), at + "outside the tolerance without rebalancing, yet " + p.replicas() + " is not the raw "
                    + p.rawReplicas());
        }
    }

    private void normalization(Normalization n, int current, int min, int max) {
        expect((n.stabilization() != null) == (n.stabilized() != n.recommendation()),
                "a stabilization entry " + (n.stabilization() == null ? "missing although" : "present although not") + " the window changed "
                        + n.recommendation() + " to " + n.stabilized());
        expect(n.constraintsApplied().contains(Normalization.STABILIZATION_WINDOW) == (n.stabilization() != null),
                "constraintsApplied and the stabilization entry disagree");
        Stabilization s = n.stabilization();
        if (s != null) {
            boolean down = Stabilization.SCALE_DOWN.equals(s.window());
            expect(down ? s.keptReplicas() > n.recommendation() && n.stabilized() <= s.keptReplicas()
                            : s.keptReplicas() < n.recommendation() && n.stabilized() >= s.keptReplicas(),
                    "the " + s.window() + " window kept " + s.keptReplicas() + " but stabilized " + n.recommendation() + " to " + n.stabilized());
            expect(s.ageMillis() >= 0 && s.ageMillis() <= s.windowSeconds() * 1000L, "the kept recommendation is " + s.ageMillis()
                    + " ms old, outside its " + s.windowSeconds() + " s window");
        }
        RateLimit r = n.rateLimit();
        boolean rateBound = r != null && r.bound();
        expect(rateBound == (n.constraintsApplied().contains(Normalization.SCALE_UP_LIMIT) || n.constraintsApplied().contains(Normalization.SCALE_DOWN_LIMIT)),
                "the rate limit's bound flag and constraintsApplied disagree");
        if (rateBound) {
            boolean up = RateLimit.UP.equals(r.direction());
            expect((n.wokeFromZero() || n.replicas() == r.limit()) && (up ? n.stabilized() > r.limit() : n.stabilized() < r.limit()),
                    "the " + r.direction() + " limit " + r.limit() + " is named as applied, yet " + n.stabilized() + " became " + n.replicas());
            expect(up ? r.limit() < max : r.limit() > min, "the rate limit is named although the " + (up ? "max" : "min") + " bound was tighter");
        }
        if (r != null && !r.bound()) {
            boolean up = RateLimit.UP.equals(r.direction());
            expect(up ? n.stabilized() <= r.limit() || max <= r.limit() : n.stabilized() >= r.limit() || min >= r.limit(),
                    "the " + r.direction() + " limit " + r.limit() + " would have bound " + n.stabilized() + " but is not named");
        }
        if (n.constraintsApplied().contains(Normalization.MAX_REPLICAS)) {
            expect(n.replicas() == max && n.stabilized() > max, "MaxReplicas named, yet " + n.stabilized() + " became " + n.replicas());
        }
        if (n.constraintsApplied().contains(Normalization.MIN_REPLICAS)) {
            expect(n.replicas() == min && (n.stabilized() < min || n.wokeFromZero()), "MinReplicas named, yet " + n.stabilized() + " became " + n.replicas());
        }
        if (!n.constraintsApplied().contains(Normalization.SCALE_UP_LIMIT) && !n.constraintsApplied().contains(Normalization.SCALE_DOWN_LIMIT)
                && !n.constraintsApplied().contains(Normalization.MAX_REPLICAS) && !n.constraintsApplied().contains(Normalization.MIN_REPLICAS)) {
            expect(n.replicas() == n.stabilized(), "nothing named after stabilization, yet " + n.stabilized() + " became " + n.replicas());
        }
        if (n.constraintsApplied().isEmpty()) {
            expect(n.replicas() == n.recommendation(), "no constraint named, yet the recommendation " + n.recommendation() + " became " + n.replicas());
        }
        if (!n.wokeFromZero()) {
            expect(n.limited() == (n.stabilized() != n.replicas()), "ScalingLimited disagrees with the counts");
        }
    }
}
