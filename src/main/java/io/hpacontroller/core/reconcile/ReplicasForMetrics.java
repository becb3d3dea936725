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
        List<MetricTrace> inFallback = new ArrayList<>();
        MetricEvaluator.Context ctx = new MetricEvaluator.Context(s.namespace(), selector, scale.specReplicas(), scale.statusReplicas(),
                tolerances, s.now());
        MetricStatus[] statuses = new MetricStatus[metricSpecs.size()];
        MetricTrace[] traces = new MetricTrace[metricSpecs.size()];
        MetricComputation[] computations = new MetricComputation[metricSpecs.size()];
        String[] ids = new String[metricSpecs.size()];
        int invalid = 0;
        MetricTrace firstFailure = null;
        MetricTrace firstBlocking = null;
        int replicas = 0;
        int selected = -1;
        for (int i = 0; i < metricSpecs.size(); i++) {
            long start = System.nanoTime();
            MetricSpec spec = metricSpecs.get(i);
            String identity = MetricIdentity.of(spec);
            ids[i] = identity;
            MetricEvaluator.Evaluated e = evaluator.evaluate(ctx, spec, i);
            MetricTrace t = e.trace();
            statuses[i] = e.status();
            if (t.failed()) {
                events.record(s.hpa(), EventRecorder.Type.Warning, t.errorReason(), t.errorMessage());
                t = fallback.failed(identity, t);
                traces[i] = t;
                if (firstFailure == null) {
                    firstFailure = t;
                }
                if (!t.fallback()) {
                    computations[i] = new MetricComputation(spec == null ? "" : String.valueOf(spec.getType()), Action.NONE,
                            t.specError() ? ErrorKind.SPEC : ErrorKind.INTERNAL, System.nanoTime() - start);
                    if (invalid == 0) {
                        firstBlocking = t;
                    }
                    invalid++;
                    continue;
                }
                inFallback.add(t);
                computations[i] = new MetricComputation(spec.getType(), compare(t.replicas(), s.original().getCurrentReplicas()),
                        ErrorKind.INTERNAL, System.nanoTime() - start);
            } else {
                fallback.succeeded(identity, t);
                traces[i] = t;
                computations[i] = new MetricComputation(spec.getType(), compare(t.replicas(), s.original().getCurrentReplicas()),
                        ErrorKind.NONE, System.nanoTime() - start);
            }
            if (replicas == 0 || t.replicas() > replicas) {
                replicas = t.replicas();
                selected = i;
            }
        }
        List<String> identities = List.of(ids);
        fallback.keepOnly(Set.copyOf(identities));
        List<MetricTrace> traceList = Arrays.asList(traces);
        List<MetricStatus> statusList = Arrays.asList(statuses);
        List<MetricComputation> computationList = Arrays.asList(computations);
        String error = null;
        ErrorKind errorKind = ErrorKind.NONE;
        if (firstFailure != null) {
            error = "invalid metrics (" + (invalid + inFallback.size()) + " invalid out of " + metricSpecs.size() + "), first error is: "
                    + firstFailure.error();
            errorKind = firstFailure.specError() ? ErrorKind.SPEC : ErrorKind.INTERNAL;
        }
        int rawDesired = selected < 0 ? -1 : replicas;
        // all metrics invalid, or some invalid and the valid ones would scale down: do nothing
        if (invalid >= metricSpecs.size() || (invalid > 0 && replicas < scale.specReplicas())) {
            s.conditions().set(ConditionList.SCALING_ACTIVE, false, firstBlocking.errorReason(),
                    "the HPA was unable to compute the replica count: " + firstBlocking.errorMessage());
            String verdict = invalid >= metricSpecs.size() ? DecisionTrace.ALL_METRICS_FAILED : DecisionTrace.FAILED_METRIC_BLOCKS_SCALE_DOWN;
            return new ReplicasForMetrics(-1, null, -1, verdict, rawDesired, traceList, statusList, computationList, error, errorKind,
                    firstBlocking.errorReason(), identities);
        }
        String metric = traces[selected].fallback() ? traces[selected].described() : traces[selected].metric();
        if (inFallback.isEmpty()) {
            s.conditions().set(ConditionList.SCALING_ACTIVE, true, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from " + metric);
        } else {
            s.conditions().set(ConditionList.SCALING_ACTIVE, true, MetricFallback.STARTED, MetricFallback.conditionMessage(inFallback));
        }
        return new ReplicasForMetrics(replicas, metric, selected, null, rawDesired, traceList, statusList, computationList, error, errorKind,
                firstFailure == null ? null : firstFailure.errorReason(), identities);
    }

    private static Action compare(int proposal, Integer current) {
        int c = current == null ? 0 : current;
        return proposal > c ? Action.SCALE_UP : proposal < c ? Action.SCALE_DOWN : Action.NONE;
    }
}
