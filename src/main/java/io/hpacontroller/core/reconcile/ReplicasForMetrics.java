package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome.MetricComputation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * What {@link Reconciler}'s {@code computeReplicasForMetrics} gives: the recommendation (-1 when there is none to
 * act on), the winning metric, every metric's trace, status entry and timing, and the error to report.
 *
 * @param replicas       the highest proposal, -1 when no scaling may follow (every metric failed, or one failed
 *                       and the others would scale down, or the selector is unusable)
 * @param metric         the description of the winning metric, null when none
 * @param selected       its index in {@code traces}, -1 when none
 * @param verdict        why there is no recommendation ({@link DecisionTrace#ALL_METRICS_FAILED} ...), null when there is one
 * @param rawDesired     the highest proposal of the metrics that gave one, -1 when none did
 * @param traces         one per metric computed
 * @param statuses       the status.currentMetrics entries, null when no metric was computed
 * @param computations   one per metric computed, for the controller's metrics
 * @param error          the error to report (the first failed metric's, or the selector's), null when none
 * @param errorKind      its kind
 * @param errorReason    the reason of the condition it set
 * @param identities     each metric's identity ({@link MetricIdentity}), in spec order; empty when no metric was computed
 */
record ReplicasForMetrics(int replicas, String metric, int selected, String verdict, int rawDesired, List<MetricTrace> traces,
                          List<MetricStatus> statuses, List<MetricComputation> computations, String error, ErrorKind errorKind,
                          String errorReason, List<String> identities) {

    static ReplicasForMetrics unusableSelector(TargetSelector.Check check) {
        return new ReplicasForMetrics(-1, null, -1, null, -1, List.of(), null, List.of(), check.error(), ErrorKind.INTERNAL, check.reason(),
                List.of());
    }

    /** The trace of the metric whose proposal won, null when none did. */
    MetricTrace selectedTrace() {
        return selected < 0 ? null : traces.get(selected);
    }

    /**
     * Every metric together (upstream {@code computeReplicasForMetrics}, past the selector check): the largest proposal
     * wins; a failed metric does not block a scale-up proposed by the others, but blocks a scale-down. With the fallback
     * control, a metric that has failed long enough proposes the fallback replicas instead ({@link MetricFallback}): it
     * enters the max like any proposal and blocks nothing. Sets ScalingActive and records each failed metric's event.
     */
    static ReplicasForMetrics compute(Sync s, ScaleTarget scale, Selector selector, List<MetricSpec> metricSpecs, Tolerances tolerances,
                                      MetricEvaluator evaluator, MetricFallback fallback, EventRecorder events) {
        MetricEvaluator.Context ctx = new MetricEvaluator.Context(s.namespace(), selector, scale.specReplicas(), scale.statusReplicas(),
                tolerances, s.now());
        Tally tally = new Tally(metricSpecs.size());
        for (int i = 0; i < metricSpecs.size(); i++) {
            tally.add(i, computeReplicasForMetric(s, ctx, metricSpecs.get(i), i, evaluator, fallback, events));
        }
        fallback.keepOnly(Set.copyOf(tally.identities()));
        return tally.verdict(s, scale.specReplicas());
    }

    /**
     * One metric's proposal (upstream {@code computeReplicasForMetric}): a failed metric costs its Warning event and, with
     * the fallback control, proposes the fallback replicas once it has failed long enough.
     *
     * @param failed whether the metric failed (a fallback proposal included)
     */
    private record One(String identity, MetricTrace trace, MetricStatus status, MetricComputation computation, boolean failed) {
    }

    private static One computeReplicasForMetric(Sync s, MetricEvaluator.Context ctx, MetricSpec spec, int index, MetricEvaluator evaluator,
                                                MetricFallback fallback, EventRecorder events) {
        long start = System.nanoTime();
        String identity = MetricIdentity.of(spec);
        MetricEvaluator.Evaluated e = evaluator.evaluate(ctx, spec, index);
        MetricTrace t = e.trace();
        if (!t.failed()) {
            fallback.succeeded(identity, t);
            return new One(identity, t, e.status(), new MetricComputation(spec.getType(), compare(t.replicas(), s.original().getCurrentReplicas()),
                    ErrorKind.NONE, System.nanoTime() - start), false);
        }
        events.record(s.hpa(), EventRecorder.Type.Warning, t.errorReason(), t.errorMessage());
        t = fallback.failed(identity, t);
        MetricComputation computation = !t.fallback()
                ? new MetricComputation(spec == null ? "" : String.valueOf(spec.getType()), Action.NONE,
                        t.specError() ? ErrorKind.SPEC : ErrorKind.INTERNAL, System.nanoTime() - start)
                : new MetricComputation(spec.getType(), compare(t.replicas(), s.original().getCurrentReplicas()), ErrorKind.INTERNAL,
                        System.nanoTime() - start);
        return new One(identity, t, e.status(), computation, true);
    }

    /** The metrics' proposals as they come, in spec order: the largest so far, the failures, the first that blocks. */
    private static final class Tally {
        private final MetricStatus[] statuses;
        private final MetricTrace[] traces;
        private final MetricComputation[] computations;
        private final String[] ids;
        private final List<MetricTrace> inFallback = new ArrayList<>();
        private int invalid;
        private MetricTrace firstFailure;
        private MetricTrace firstBlocking;
        private int replicas;
        private int selected = -1;

        Tally(int metrics) {
            statuses = new MetricStatus[metrics];
            traces = new MetricTrace[metrics];
            computations = new MetricComputation[metrics];
            ids = new String[metrics];
        }

        List<String> identities() {
            return List.of(ids);
        }

        void add(int i, One one) {
            MetricTrace t = one.trace();
            ids[i] = one.identity();
            statuses[i] = one.status();
            traces[i] = t;
            computations[i] = one.computation();
            if (one.failed()) {
                firstFailure = firstFailure == null ? t : firstFailure;
                if (!t.fallback()) {
                    firstBlocking = invalid == 0 ? t : firstBlocking;
                    invalid++;
                    return;
                }
                inFallback.add(t);
            }
            if (replicas == 0 || t.replicas() > replicas) {
                replicas = t.replicas();
                selected = i;
            }
        }

        /** The recommendation, or none when every metric failed or a failed one blocks a scale-down; sets ScalingActive. */
        ReplicasForMetrics verdict(Sync s, int currentReplicas) {
            String error = firstFailure == null ? null : "invalid metrics (" + (invalid + inFallback.size()) + " invalid out of "
                    + traces.length + "), first error is: " + firstFailure.error();
            ErrorKind errorKind = firstFailure == null ? ErrorKind.NONE : firstFailure.specError() ? ErrorKind.SPEC : ErrorKind.INTERNAL;
            int rawDesired = selected < 0 ? -1 : replicas;
            // all metrics invalid, or some invalid and the valid ones would scale down: do nothing
            if (invalid >= traces.length || (invalid > 0 && replicas < currentReplicas)) {
                s.conditions().set(ConditionList.SCALING_ACTIVE, false, firstBlocking.errorReason(),
                        "the HPA was unable to compute the replica count: " + firstBlocking.errorMessage());
                String verdict = invalid >= traces.length ? DecisionTrace.ALL_METRICS_FAILED : DecisionTrace.FAILED_METRIC_BLOCKS_SCALE_DOWN;
                return new ReplicasForMetrics(-1, null, -1, verdict, rawDesired, Arrays.asList(traces), Arrays.asList(statuses),
                        Arrays.asList(computations), error, errorKind, firstBlocking.errorReason(), identities());
            }
            String metric = traces[selected].fallback() ? traces[selected].described() : traces[selected].metric();
            if (inFallback.isEmpty()) {
                s.conditions().set(ConditionList.SCALING_ACTIVE, true, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from " + metric);
            } else {
                s.conditions().set(ConditionList.SCALING_ACTIVE, true, MetricFallback.STARTED, MetricFallback.conditionMessage(inFallback));
            }
            return new ReplicasForMetrics(replicas, metric, selected, null, rawDesired, Arrays.asList(traces), Arrays.asList(statuses),
                    Arrays.asList(computations), error, errorKind, firstFailure == null ? null : firstFailure.errorReason(), identities());
        }
    }

    private static Action compare(int proposal, Integer current) {
        int c = current == null ? 0 : current;
        return proposal > c ? Action.SCALE_UP : proposal < c ? Action.SCALE_DOWN : Action.NONE;
    }
}
