package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.Normalizer;
import io.hpacontroller.core.reconcile.ReconcileOutcome.Action;
import io.hpacontroller.core.reconcile.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.reconcile.ReconcileOutcome.MetricComputation;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One sync of one HorizontalPodAutoscaler (upstream {@code reconcileAutoscaler}): read the target's
 * scale, compute every metric, normalize the proposal, write the scale if it changes, write the status
 * if it changed. The live controller, the simulator and the conformance runner all call this.
 *
 * <p>It talks to the world only through its ports and reads time only from its clock. It never
 * throws: every failure ends up in a condition, an event and the returned {@link ReconcileOutcome}.
 */
public final class Reconciler {

    private final ControllerConfig config;
    private final ScaleClient scales;
    private final PodSource pods;
    private final StatusWriter statusWriter;
    private final EventRecorder events;
    private final HistoryStore histories;
    private final SelectorOwnership ownership;
    private final Clock clock;
    private final MetricEvaluator evaluator;

    public Reconciler(ControllerConfig config, ScaleClient scales, PodSource pods, MetricsSource metrics,
                      StatusWriter statusWriter, EventRecorder events, HistoryStore histories,
                      SelectorOwnership ownership, Clock clock) {
        this.config = Objects.requireNonNull(config);
        this.scales = Objects.requireNonNull(scales);
        this.pods = Objects.requireNonNull(pods);
        this.statusWriter = Objects.requireNonNull(statusWriter);
        this.events = Objects.requireNonNull(events);
        this.histories = Objects.requireNonNull(histories);
        this.ownership = Objects.requireNonNull(ownership);
        this.clock = Objects.requireNonNull(clock);
        this.evaluator = new MetricEvaluator(new ReplicaCalculator(config.cpuInitializationPeriod().toMillis(),
                config.initialReadinessDelay().toMillis()), metrics, pods);
    }

    public ControllerConfig config() {
        return config;
    }

    /**
     * The key of an HPA: "namespace/name" for autoscaling's own (as upstream), "group/namespace/name" for an
     * HPA of another API group with the same schema (a driver hands those to the core with their apiVersion),
     * so HPAs of two APIs with the same namespace and name never share histories or selector entries.
     */
    public static String keyOf(HorizontalPodAutoscaler hpa) {
        if (hpa == null || hpa.getMetadata() == null) {
            return "<unknown>/<unknown>";
        }
        String key = hpa.getMetadata().getNamespace() + "/" + hpa.getMetadata().getName();
        String apiVersion = hpa.getApiVersion();
        int slash = apiVersion == null ? -1 : apiVersion.indexOf('/');
        String group = slash < 0 ? "autoscaling" : apiVersion.substring(0, slash);
        return group.equals("autoscaling") ? key : group + "/" + key;
    }

    /** The HPA was deleted: drop everything remembered about it. */
    public void forget(String key) {
        histories.forget(key);
        ownership.forget(key);
    }

    /** Syncs one HPA. Never throws. */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler hpa) {
        Sync sync;
        try {
            if (hpa == null || hpa.getMetadata() == null) {
                throw new IllegalArgumentException("the HPA has no metadata");
            }
            sync = new Sync(hpa);
        } catch (RuntimeException e) {
            String msg = "internal error while reconciling " + keyOf(hpa) + ": " + e;
            HorizontalPodAutoscalerStatus status = hpa == null || hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus() : hpa.getStatus();
            return new ReconcileOutcome(keyOf(hpa), -1, -1, desired(status), false, Action.NONE, ErrorKind.INTERNAL, msg,
                    null, "", null, List.of(), status, false);
        }
        try {
            return sync.run();
        } catch (RuntimeException e) {
            String msg = "internal error while reconciling " + sync.key + ": " + e;
            return sync.outcome(ErrorKind.INTERNAL, msg, false);
        }
    }

    /** The working state of one sync. */
    private final class Sync {
        final HorizontalPodAutoscaler hpa;
        final String key;
        final String namespace;
        final long now;
        final HorizontalPodAutoscalerStatus original;
        final ConditionList conditions;
        final HpaHistory history;
        final List<MetricComputation> computations = new ArrayList<>();

        int currentReplicas = -1;
        int proposed = -1;
        int desired;
        boolean rescaled;
        Action action = Action.NONE;
        String metricName;
        String rescaleReason = "";
        HorizontalPodAutoscalerStatus status;
        boolean statusWritten;

        Sync(HorizontalPodAutoscaler hpa) {
            this.hpa = hpa;
            this.key = keyOf(hpa);
            this.namespace = hpa.getMetadata().getNamespace();
            this.now = clock.millis();
            this.original = hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus() : hpa.getStatus();
            this.conditions = new ConditionList(original.getConditions(), formatTime(now));
            this.history = histories.of(key);
            this.desired = original.getDesiredReplicas() == null ? 0 : original.getDesiredReplicas();
            this.status = original;
        }

        ReconcileOutcome run() {
            HorizontalPodAutoscalerSpec spec = hpa.getSpec();
            CrossVersionObjectReference ref = spec == null ? null : spec.getScaleTargetRef();
            if (ref == null || isBlank(ref.getKind()) || isBlank(ref.getName())) {
                return failGetScale("the HPA has no scaleTargetRef with a kind and a name", true);
            }
            String badVersion = checkApiVersion(ref.getApiVersion());
            if (badVersion != null) {
                return failGetScale(badVersion, true);
            }
            ScaleTarget scale;
            try {
                scale = scales.get(namespace, ref);
            } catch (ApiException e) {
                return failGetScale(e.getMessage(), false);
            }
            conditions.set(ConditionList.ABLE_TO_SCALE, true, "SucceededGetScale", "the HPA controller was able to get the target's current scale");
            currentReplicas = scale.specReplicas();
            String badBounds = checkReplicaBounds(spec.getMinReplicas(), spec.getMaxReplicas());
            if (badBounds != null) {
                return failSpec("InvalidReplicaBounds", badBounds, "invalid replica bounds for " + reference() + ": " + badBounds);
            }
            history.recordInitialRecommendation(currentReplicas, now);

            int maxReplicas = spec.getMaxReplicas();
            int minReplicas = spec.getMinReplicas() != null ? spec.getMinReplicas() : 1;
            List<MetricSpec> metricSpecs = spec.getMetrics() == null || spec.getMetrics().isEmpty() ? defaultMetrics() : spec.getMetrics();

            boolean scaleToZero = config.scaleToZeroEnabled();
            boolean hasObjectOrExternal = metricSpecs.stream().anyMatch(m -> m != null && ("Object".equals(m.getType()) || "External".equals(m.getType())));
            boolean scaledToZeroCondition = scaleToZero && conditions.isTrue(ConditionList.SCALED_TO_ZERO);
            boolean canScaleFromZero = scaledToZeroCondition && hasObjectOrExternal;

            boolean computeMetrics = true;
            boolean rescale = true;
            List<MetricStatus> metricStatuses = null;
            ErrorKind partialError = ErrorKind.NONE;
            String partialMessage = null;
            desired = 0;

            if (currentReplicas == 0) {
                computeMetrics = (minReplicas != 0 && scaledToZeroCondition) || canScaleFromZero;
                if (!computeMetrics) {
                    rescale = false;
                    conditions.set(ConditionList.SCALING_ACTIVE, false, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero");
                    if (!scaleToZero) {
                        conditions.remove(ConditionList.SCALED_TO_ZERO);
                    }
                }
            } else if (currentReplicas > maxReplicas) {
                rescaleReason = "Current number of replicas above Spec.MaxReplicas";
                desired = maxReplicas;
                computeMetrics = false;
            } else if (currentReplicas < minReplicas) {
                rescaleReason = "Current number of replicas below Spec.MinReplicas";
                desired = minReplicas;
                computeMetrics = false;
            }

            Behavior behavior = null;
            if (spec.getBehavior() != null) {
                try {
                    behavior = Behavior.withDefaults(spec.getBehavior(), (int) config.downscaleStabilization().toSeconds());
                } catch (IllegalArgumentException e) {
                    String msg = "invalid behavior: " + e.getMessage();
                    return failSpec("InvalidBehavior", msg, msg);
                }
            }

            if (computeMetrics) {
                Tolerances tolerances = Behavior.tolerances(behavior, config.tolerance());
                Computed computed = computeReplicasForMetrics(scale, metricSpecs, tolerances);
                metricStatuses = computed.statuses;
                if (computed.replicas < 0) {
                    writeStatus(currentReplicas, desired(original), metricStatuses, false);
                    events.record(hpa, EventRecorder.Type.Warning, "FailedComputeMetricsReplicas", computed.error);
                    return outcome(computed.errorKind, "failed to compute desired number of replicas based on listed metrics for "
                            + reference() + ": " + computed.error, false);
                }
                if (computed.error != null) {
                    partialError = computed.errorKind;
                    partialMessage = computed.error;
                }
                proposed = computed.replicas;
                metricName = computed.metric;
                String rescaleMetric = "";
                if (proposed > desired) {
                    desired = proposed;
                    rescaleMetric = metricName;
                }
                if (desired > currentReplicas) {
                    rescaleReason = rescaleMetric + " above target";
                }
                if (desired < currentReplicas) {
                    rescaleReason = "All metrics below target";
                }
                Normalization n = behavior == null
                        ? Normalizer.legacy(history, now, config.downscaleStabilization().toMillis(), currentReplicas, desired, minReplicas, maxReplicas)
                        : Normalizer.withBehavior(history, now, behavior, currentReplicas, desired, minReplicas, maxReplicas);
                conditions.set(ConditionList.ABLE_TO_SCALE, true, n.ableToScaleReason(), n.ableToScaleMessage());
                conditions.set(ConditionList.SCALING_LIMITED, n.limited(), n.limitReason(), n.limitMessage());
                desired = n.replicas();
                // waking from zero because minReplicas was raised: go at least to minReplicas
                if (currentReplicas == 0 && minReplicas != 0 && scaledToZeroCondition && desired < minReplicas) {
                    desired = minReplicas;
                    if (rescaleReason.isEmpty()) {
                        rescaleReason = "Current number of replicas below Spec.MinReplicas";
                    }
                }
                rescale = desired != currentReplicas;
            }

            if (rescale) {
                String failure = writeScale(ref, scale, desired);
                if (failure != null) {
                    events.record(hpa, EventRecorder.Type.Warning, "FailedRescale",
                            "New size: " + desired + "; reason: " + rescaleReason + "; error: " + failure);
                    conditions.set(ConditionList.ABLE_TO_SCALE, false, "FailedUpdateScale", "the HPA controller was unable to update the target scale: " + failure);
                    writeStatus(currentReplicas, desired(original), metricStatuses, false);
                    return outcome(ErrorKind.INTERNAL, "failed to rescale " + reference() + ": " + failure, false);
                }
                rescaled = true;
                conditions.set(ConditionList.ABLE_TO_SCALE, true, "SucceededRescale", "the HPA controller was able to update the target scale to " + desired);
                events.record(hpa, EventRecorder.Type.Normal, "SuccessfulRescale", "New size: " + desired + "; reason: " + rescaleReason);
                history.recordScaleEvent(behavior, currentReplicas, desired, now);
                if (scaleToZero) {
                    if (currentReplicas > 0 && desired == 0 && minReplicas == 0 && hasObjectOrExternal) {
                        conditions.set(ConditionList.SCALED_TO_ZERO, true, "ScaledToZero", "the HPA controller scaled the workload to zero");
                    } else {
                        conditions.set(ConditionList.SCALED_TO_ZERO, false, "NotScaledToZero", "the HPA controller did not scale the workload to zero");
                    }
                } else {
                    conditions.remove(ConditionList.SCALED_TO_ZERO);
                }
                action = desired > currentReplicas ? Action.SCALE_UP : Action.SCALE_DOWN;
            } else {
                desired = currentReplicas;
            }

            boolean ok = writeStatus(currentReplicas, desired, metricStatuses, rescale);
            if (!ok) {
                return outcome(ErrorKind.INTERNAL, "failed to update status for " + hpa.getMetadata().getName(), rescaled);
            }
            return outcome(partialError, partialMessage, rescaled);
        }

        /** The metric computations together: the largest proposal wins; errors as upstream allows them. */
        private Computed computeReplicasForMetrics(ScaleTarget scale, List<MetricSpec> metricSpecs, Tolerances tolerances) {
            Computed out = new Computed();
            Selector selector = validateSelector(scale.selector());
            if (selector == null) {
                out.replicas = -1;
                out.error = selectorError;
                out.errorKind = ErrorKind.INTERNAL;
                return out;
            }
            MetricEvaluator.Context ctx = new MetricEvaluator.Context(namespace, selector, scale.specReplicas(), scale.statusReplicas(), tolerances, now);
            MetricStatus[] statuses = new MetricStatus[metricSpecs.size()];
            int invalid = 0;
            MetricResult.Failure firstFailure = null;
            int replicas = 0;
            String metric = "";
            for (int i = 0; i < metricSpecs.size(); i++) {
                long start = System.nanoTime();
                MetricSpec spec = metricSpecs.get(i);
                MetricResult result = evaluator.evaluate(ctx, spec);
                statuses[i] = new MetricStatus();
                if (result instanceof MetricResult.Failure f) {
                    events.record(hpa, EventRecorder.Type.Warning, f.reason(), f.message());
                    computations.add(new MetricComputation(spec == null ? "" : String.valueOf(spec.getType()), Action.NONE,
                            f.specError() ? ErrorKind.SPEC : ErrorKind.INTERNAL, System.nanoTime() - start));
                    if (invalid == 0) {
                        firstFailure = f;
                    }
                    invalid++;
                    continue;
                }
                MetricResult.Proposal p = (MetricResult.Proposal) result;
                statuses[i] = p.status();
                computations.add(new MetricComputation(spec.getType(), compare(p.replicas(), original.getCurrentReplicas()),
                        ErrorKind.NONE, System.nanoTime() - start));
                if (replicas == 0 || p.replicas() > replicas) {
                    replicas = p.replicas();
                    metric = p.metric();
                }
            }
            out.statuses = Arrays.asList(statuses);
            if (firstFailure != null) {
                out.error = "invalid metrics (" + invalid + " invalid out of " + metricSpecs.size() + "), first error is: " + firstFailure.error();
                out.errorKind = firstFailure.specError() ? ErrorKind.SPEC : ErrorKind.INTERNAL;
            }
            // all metrics invalid, or some invalid and the valid ones would scale down: do nothing
            if (invalid >= metricSpecs.size() || (invalid > 0 && replicas < scale.specReplicas())) {
                conditions.set(ConditionList.SCALING_ACTIVE, false, firstFailure.reason(),
                        "the HPA was unable to compute the replica count: " + firstFailure.message());
                out.replicas = -1;
                return out;
            }
            conditions.set(ConditionList.SCALING_ACTIVE, true, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from " + metric);
            out.replicas = replicas;
            out.metric = metric;
            return out;
        }

        private String selectorError;

        /** The target's selector, parsed; null (with the condition and event set) when it cannot be used. */
        private Selector validateSelector(String text) {
            if (text == null || text.isEmpty()) {
                selectorError = "selector is required";
                events.record(hpa, EventRecorder.Type.Warning, "SelectorRequired", selectorError);
                conditions.set(ConditionList.SCALING_ACTIVE, false, "InvalidSelector", "the HPA target's scale is missing a selector");
                return null;
            }
            Selector selector;
            try {
                selector = Selector.parse(text);
            } catch (IllegalArgumentException e) {
                selectorError = "couldn't convert selector into a corresponding internal selector object: " + e.getMessage();
                events.record(hpa, EventRecorder.Type.Warning, "InvalidSelector", selectorError);
                conditions.set(ConditionList.SCALING_ACTIVE, false, "InvalidSelector", selectorError);
                return null;
            }
            if (ownership != SelectorOwnership.NONE) {
                List<PodInfo> selected = pods.list(namespace, selector);
                List<String> controllers = ownership.controllers(key, namespace, selector, selected);
                if (controllers.size() > 1) {
                    selectorError = "pods by selector " + text + " are controlled by multiple HPAs: " + controllers;
                    events.record(hpa, EventRecorder.Type.Warning, "AmbiguousSelector", selectorError);
                    conditions.set(ConditionList.SCALING_ACTIVE, false, "AmbiguousSelector", selectorError);
                    return null;
                }
            }
            return selector;
        }

        /**
         * Writes spec.replicas once, guarded by the resourceVersion of the scale the decision was made from
         * (upstream: one {@code Update}). Returns the error, or null on success. A conflict is not retried: the
         * count was computed from the scale that was read, so writing it over a newer scale would apply an old
         * decision (a 12 -> 6 scale-down nobody stabilized or limited). The sync fails and the next one decides
         * from the fresh scale.
         */
        private String writeScale(CrossVersionObjectReference ref, ScaleTarget scale, int replicas) {
            try {
                scales.update(namespace, ref, scale, replicas);
                return null;
            } catch (ApiException e) {
                return e.getMessage();
            }
        }

        /**
         * A spec the decisions cannot be made from: a Warning event and ScalingActive=False with the
         * reason, the status written with the current count, no scale.
         */
        private ReconcileOutcome failSpec(String reason, String message, String outcomeMessage) {
            events.record(hpa, EventRecorder.Type.Warning, reason, message);
            conditions.set(ConditionList.SCALING_ACTIVE, false, reason, "the HPA was unable to compute the replica count: " + message);
            writeStatus(currentReplicas, desired(original), null, false);
            return outcome(ErrorKind.SPEC, outcomeMessage, false);
        }

        private ReconcileOutcome failGetScale(String message, boolean specError) {
            events.record(hpa, EventRecorder.Type.Warning, "FailedGetScale", message);
            conditions.set(ConditionList.ABLE_TO_SCALE, false, "FailedGetScale", "the HPA controller was unable to get the target's current scale: " + message);
            HorizontalPodAutoscalerStatus next = copyOf(original);
            next.setConditions(conditions.toList());
            updateStatusIfNeeded(next);
            return outcome(specError ? ErrorKind.SPEC : ErrorKind.INTERNAL, "failed to query scale subresource for " + reference() + ": " + message, false);
        }

        /** Upstream {@code setStatus} followed by {@code updateStatusIfNeeded}. */
        private boolean writeStatus(int current, int desiredReplicas, List<MetricStatus> metricStatuses, boolean rescale) {
            HorizontalPodAutoscalerStatus next = new HorizontalPodAutoscalerStatus();
            next.setCurrentReplicas(current);
            next.setDesiredReplicas(desiredReplicas);
            next.setLastScaleTime(rescale ? formatTime(now) : original.getLastScaleTime());
            next.setCurrentMetrics(metricStatuses == null ? null : new ArrayList<>(metricStatuses));
            next.setConditions(conditions.toList());
            next.setObservedGeneration(hpa.getMetadata().getGeneration());
            return updateStatusIfNeeded(next);
        }

        private boolean updateStatusIfNeeded(HorizontalPodAutoscalerStatus next) {
            status = next;
            if (StatusEquality.same(original, next)) {
                return true;
            }
            try {
                statusWriter.write(hpa, next);
                statusWritten = true;
                return true;
            } catch (ApiException e) {
                events.record(hpa, EventRecorder.Type.Warning, "FailedUpdateStatus", e.getMessage());
                return false;
            }
        }

        ReconcileOutcome outcome(ErrorKind error, String message, boolean rescaledNow) {
            String limit = null;
            var limited = conditions.find(ConditionList.SCALING_LIMITED);
            if (limited != null && "True".equals(limited.getStatus())) {
                limit = limited.getReason();
            }
            return new ReconcileOutcome(key, currentReplicas, proposed, status.getDesiredReplicas() == null ? desired : status.getDesiredReplicas(),
                    rescaledNow, rescaledNow ? action : Action.NONE, error, message, metricName, rescaleReason, limit,
                    List.copyOf(computations), status, statusWritten);
        }

        private String reference() {
            CrossVersionObjectReference ref = hpa.getSpec() == null ? null : hpa.getSpec().getScaleTargetRef();
            return ref == null ? "<none>/" + namespace : ref.getKind() + "/" + namespace + "/" + ref.getName();
        }
    }

    private static final class Computed {
        int replicas;
        String metric;
        List<MetricStatus> statuses;
        String error;
        ErrorKind errorKind = ErrorKind.NONE;
    }

    private static Action compare(int proposal, Integer current) {
        int c = current == null ? 0 : current;
        return proposal > c ? Action.SCALE_UP : proposal < c ? Action.SCALE_DOWN : Action.NONE;
    }

    private static int desired(HorizontalPodAutoscalerStatus status) {
        return status.getDesiredReplicas() == null ? 0 : status.getDesiredReplicas();
    }

    /** The API server fills an empty metrics list with 80% average CPU utilization. */
    private static List<MetricSpec> defaultMetrics() {
        return List.of(new io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder()
                .withType("Resource")
                .withNewResource().withName("cpu").withNewTarget().withType("Utilization").withAverageUtilization(80).endTarget().endResource()
                .build());
    }

    /**
     * What the API server's validation would have refused about minReplicas and maxReplicas (an object
     * from an older API version, or written around validation), or null when they are usable. minReplicas
     * 0 is accepted: it is valid with the HPAScaleToZero gate, and harmless without it.
     */
    static String checkReplicaBounds(Integer minReplicas, Integer maxReplicas) {
        if (maxReplicas == null) {
            return "spec.maxReplicas is required";
        }
        if (maxReplicas < 1) {
            return "spec.maxReplicas must be at least 1, got " + maxReplicas;
        }
        if (minReplicas != null && minReplicas < 0) {
            return "spec.minReplicas must not be negative, got " + minReplicas;
        }
        if (minReplicas != null && minReplicas > maxReplicas) {
            return "spec.minReplicas (" + minReplicas + ") must not be greater than spec.maxReplicas (" + maxReplicas + ")";
        }
        return null;
    }

    /** Returns an error message when the scaleTargetRef's apiVersion does not parse as a group/version. */
    private static String checkApiVersion(String apiVersion) {
        if (apiVersion == null || apiVersion.isEmpty()) {
            return null; // the core group, "v1"
        }
        String[] parts = apiVersion.split("/", -1);
        if (parts.length > 2 || Arrays.stream(parts).anyMatch(String::isEmpty)) {
            return "unexpected GroupVersion string: " + apiVersion;
        }
        return null;
    }

    private static HorizontalPodAutoscalerStatus copyOf(HorizontalPodAutoscalerStatus s) {
        HorizontalPodAutoscalerStatus c = new HorizontalPodAutoscalerStatus();
        c.setCurrentReplicas(s.getCurrentReplicas());
        c.setDesiredReplicas(s.getDesiredReplicas());
        c.setLastScaleTime(s.getLastScaleTime());
        c.setCurrentMetrics(s.getCurrentMetrics() == null ? null : new ArrayList<>(s.getCurrentMetrics()));
        c.setConditions(s.getConditions());
        c.setObservedGeneration(s.getObservedGeneration());
        return c;
    }

    static String formatTime(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static boolean isBlank(String s) {
        return s == null || s.isEmpty();
    }
}
