package io.hpacontroller.conformance;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.calc.CalculationException;
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.ToleranceVerdict;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.RateLimit;
import io.hpacontroller.core.normalize.Stabilization;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trace checker every conformance case goes through ({@link ConformanceCasesTest}) must be able to
 * fail: traces that contradict their decision are caught.
 */
class TraceConsistencyTest {

    private static Normalization normalization(int recommendation, int stabilized, int replicas, Stabilization s, RateLimit r,
                                               List<String> constraints, boolean limited) {
        return new Normalization(recommendation, stabilized, replicas, s, r, constraints, false, "ReadyForNewScale", "",
                limited, limited ? "ScaleUpLimit" : "DesiredWithinRange", "");
    }

    @Test
    void aConsistentNormalizationPasses() {
        Normalization n = normalization(3, 8, 8, new Stabilization(Stabilization.SCALE_DOWN, 300, 8, 0, 130_000), null,
                List.of(Normalization.STABILIZATION_WINDOW), false);
        assertThat(TraceConsistency.ofNormalization(n, 8, 1, 10)).isEmpty();
    }

    @Test
    void aStabilizationEntryThatChangedNothingIsCaught() {
        Normalization n = normalization(5, 5, 5, new Stabilization(Stabilization.SCALE_DOWN, 300, 8, 0, 130_000), null,
                List.of(Normalization.STABILIZATION_WINDOW), false);
        assertThat(TraceConsistency.ofNormalization(n, 5, 1, 10)).anySatisfy(p -> assertThat(p).contains("present although not"));
    }

    @Test
    void aMissingStabilizationEntryIsCaught() {
        Normalization n = normalization(3, 8, 8, null, null, List.of(), false);
        assertThat(TraceConsistency.ofNormalization(n, 8, 1, 10)).anySatisfy(p -> assertThat(p).contains("missing although"));
    }

    @Test
    void aRateLimitNamedButNotBindingIsCaught() {
        RateLimit limit = new RateLimit(RateLimit.UP, 7, true, RateLimit.POLICY, "Max", "Pods", 4, 15, 3, 0, 0, 0);
        Normalization n = normalization(6, 6, 6, null, limit, List.of(Normalization.SCALE_UP_LIMIT), false);
        assertThat(TraceConsistency.ofNormalization(n, 3, 1, 10)).anySatisfy(p -> assertThat(p).contains("is named as applied"));
    }

    @Test
    void aBindingRateLimitNotNamedIsCaught() {
        RateLimit limit = new RateLimit(RateLimit.UP, 5, false, RateLimit.POLICY, "Max", "Pods", 2, 60, 3, 0, 0, 0);
        Normalization n = normalization(6, 6, 6, null, limit, List.of(), false);
        assertThat(TraceConsistency.ofNormalization(n, 3, 1, 10)).anySatisfy(p -> assertThat(p).contains("would have bound"));
    }

    @Test
    void aFinalCountThatIsNotTheScaleWrittenIsCaught() {
        Normalization n = normalization(6, 6, 6, null, null, List.of(), false);
        DecisionTrace t = new DecisionTrace(HpaKey.parse("ns/web"), 0, 3, 1, 10, List.of(), -1, null, 6, null, n, List.of(), null, 6,
                Action.SCALE_UP, true, "", ErrorKind.NONE, null, null);
        ReconcileOutcome o = new ReconcileOutcome(t, null, true, List.of());
        assertThat(TraceConsistency.ofSync(o, List.of(6), 3)).anySatisfy(p -> assertThat(p).contains("rawDesiredReplicas 6 but the highest proposal is -1"));
        assertThat(TraceConsistency.ofSync(o, List.of(5), 3)).anySatisfy(p -> assertThat(p).contains("desiredReplicas 6 but the scale was written to 5"));
    }
    /** An External AverageValue metric as the core computes it: its total over {@code statusReplicas}, against 2 per pod. */
    private static Proposal externalAverage(int statusReplicas, long total) throws CalculationException {
        return new ReplicaCalculator(300_000, 30_000).averageOverReplicas(statusReplicas, 2_000, total, Tolerances.of(0.1));
    }

    private static MetricTrace external(Proposal p) {
        return new MetricTrace("External", "queue", "external metric queue(nil)", "AverageValue", 2, p.usage() / 1000.0, 0, p,
                p.replicas(), null, null, null, false);
    }

    @Test
    void aNanUsageRatioOutsideTheToleranceAsTheCoreSaysPasses() throws CalculationException {
        // a total of 0 at status.replicas 0: 0 / (2 x 0) is NaN, upstream's ratio too; isWithin(NaN) is false
        Proposal p = externalAverage(0, 0);
        assertThat(p.usageRatio()).isNaN();
        assertThat(p.tolerance().within()).isFalse();
        assertThat(p.replicas()).isZero();
        assertThat(TraceConsistency.ofMetric(external(p), 0, 0)).isEmpty();
    }

    @Test
    void aNanUsageRatioCalledInsideTheToleranceIsCaught() throws CalculationException {
        Proposal p = externalAverage(0, 0);
        ToleranceVerdict inside = new ToleranceVerdict(Double.NaN, true, ToleranceVerdict.NONE, 0.1, Tolerances.Source.FLAG);
        Proposal held = new Proposal(0, p.usageRatio(), p.rawReplicas(), null, null, inside, p.usage(), -1);
        assertThat(TraceConsistency.ofMetric(external(held), 0, 0)).anySatisfy(m -> assertThat(m).contains("contradicts its own tolerance"));
    }

    @Test
    void aNanUsageRatioWithAProposalOtherThanTheRawCountIsCaught() throws CalculationException {
        Proposal p = externalAverage(0, 0);
        Proposal wrong = new Proposal(3, p.usageRatio(), p.rawReplicas(), null, null, p.tolerance(), p.usage(), -1);
        assertThat(TraceConsistency.ofMetric(external(wrong), 0, 0)).containsExactly(
                "trace: metric External queue: outside the tolerance without rebalancing, yet 3 is not the raw 0");
    }
}
