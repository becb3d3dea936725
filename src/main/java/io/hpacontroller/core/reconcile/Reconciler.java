package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.Mode;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.Normalizer;
import io.hpacontroller.core.normalize.Retention;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.schedule.Schedules;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.ControlsTrace;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.PredictionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome.MetricComputation;

import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ScheduleTrace;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One sync of one HorizontalPodAutoscaler (upstream {@code reconcileAutoscaler}): read the target's
 * scale, compute every metric ({@link #computeReplicasForMetrics}), normalize the proposal
 * ({@link Normalizer#normalizeDesiredReplicas}), write the scale if it changes, write the status if it
 * changed ({@link #updateStatusIfNeeded}). The live controller, the simulator, the conformance runner
 * and {@code explain} all call {@link #reconcile}.
 *
 * <p>It talks to the world only through its ports and reads time only from its clock. It never
 * throws: every failure ends up in a condition, an event and the returned {@link ReconcileOutcome},
 * whose {@link DecisionTrace} records the decision as it was made.
 *
 * <p>Each HPA comes with its {@link HpaControls} (from its annotations, or the mirror API's fields): invalid
 * ones stop it with ScalingActive=False {@value #INVALID_ANNOTATION}; {@link Mode#SUSPENDED} reads nothing and
 * writes one condition; {@link Mode#PREVIEW} decides and writes status, conditions and events but never the
 * scale; the warm-up durations replace the flags' for this HPA; the fallback is {@link MetricFallback}. The sync
 * period is the driver's business (the core only names it in the trace). Without controls, upstream's behavior.
 */
public final class Reconciler {

    private static final int PARSED_SELECTORS_MAX = 65_536;

    private final ControllerConfig config;
    private final ScaleClient scales;
    private final PodSource pods;
    private final StatusWriter statusWriter;
    private final EventRecorder events;
    private final HistoryStore histories;
    private final HistoryWriter historyWriter;
    private final SelectorOwnership ownership;
    private final Clock clock;
    private final MetricEvaluator evaluator;
    private final MetricsSource metrics;
    private final LoadPrediction prediction = new LoadPrediction();
    private final Map<String, Selector> parsedSelectors = new ConcurrentHashMap<>();

    /** ScalingActive=False reason and Warning event of HPAs whose controls cannot be read. */
    public static final String INVALID_ANNOTATION = "InvalidAnnotation";
    /** ScalingActive=False reason of an HPA whose mirror API control fields cannot be read. */
    public static final String INVALID_SPEC = "InvalidSpec";
    /** ScalingActive=False reason of a suspended HPA. */
    public static final String SUSPENDED = "Suspended";
    /** AbleToScale=False reason of an HPA in Preview, and the Normal event of a rescale it did not write. */
    public static final String PREVIEW = "Preview";
    public static final String PREVIEW_RESCALE = "PreviewRescale";
    /** Warning event (and AbleToScale=False reason, when a scale was not written for it) of a history that could not be kept. */
    public static final String FAILED_UPDATE_HISTORY = "FailedUpdateHistory";
    /**
     * Condition type and Warning event of an HPA whose status another controller writes too ({@link OtherStatusWriter}); the
     * condition's reason is {@value #STATUS_WRITTEN_BY_ANOTHER}. The condition is absent otherwise.
     */
    public static final String CONFLICTING_CONTROLLER = ConditionList.CONFLICTING_CONTROLLER;
    public static final String STATUS_WRITTEN_BY_ANOTHER = "StatusWrittenByAnother";

    public Reconciler(ControllerConfig config, ScaleClient scales, PodSource pods, MetricsSource metrics,
                      StatusWriter statusWriter, EventRecorder events, HistoryStore histories,
                      SelectorOwnership ownership, Clock clock) {
        this(config, scales, pods, metrics, statusWriter, events, histories, HistoryWriter.NONE, ownership, clock);
    }

    /** @param historyWriter keeps each HPA's history for the next leader */
    public Reconciler(ControllerConfig config, ScaleClient scales, PodSource pods, MetricsSource metrics,
                      StatusWriter statusWriter, EventRecorder events, HistoryStore histories, HistoryWriter historyWriter,
                      SelectorOwnership ownership, Clock clock) {
        this.config = Objects.requireNonNull(config);
        this.scales = Objects.requireNonNull(scales);
        this.pods = Objects.requireNonNull(pods);
        this.statusWriter = Objects.requireNonNull(statusWriter);
        this.events = Objects.requireNonNull(events);
        this.histories = Objects.requireNonNull(histories);
        this.historyWriter = Objects.requireNonNull(historyWriter);
        this.ownership = Objects.requireNonNull(ownership);
        this.clock = Objects.requireNonNull(clock);
        this.metrics = Objects.requireNonNull(metrics);
        this.evaluator = new MetricEvaluator(new ReplicaCalculator(config.cpuInitializationPeriod().toMillis(),
                config.initialReadinessDelay().toMillis()), metrics, pods);
    }

    /** The evaluator for an HPA: the flags' warm-up, or the HPA's own. */
    private MetricEvaluator evaluatorFor(HpaControls controls) {
        return controls.ownWarmUp() ? evaluatorFor(controls, metrics, pods) : evaluator;
    }

    /**
     * An evaluator of an HPA's metrics as this reconciler computes them (the HPA's own warm-up, or the flags'), on other
     * ports: the simulator asks it what the metrics would have proposed had they shown something else.
     */
    public MetricEvaluator evaluatorFor(HpaControls controls, MetricsSource metrics, PodSource pods) {
        long cpu = (controls.cpuInitializationPeriod() == null ? config.cpuInitializationPeriod() : controls.cpuInitializationPeriod()).toMillis();
        long ready = (controls.initialReadinessDelay() == null ? config.initialReadinessDelay() : controls.initialReadinessDelay()).toMillis();
        return new MetricEvaluator(new ReplicaCalculator(cpu, ready), metrics, pods);
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
        prediction.forget(key);
    }

    /** HPAs whose learned load (predictive scaling) is held decoded, besides their histories. */
    public int predicting() {
        return prediction.size();
    }

    /**
     * The HPA being synced and the status it started with: the inputs every step of one sync shares. The
     * conditions are the status being built (upstream sets them on its copy of the HPA).
     */
    private record Sync(HorizontalPodAutoscaler hpa, String key, String namespace, long now,
                        HorizontalPodAutoscalerStatus original, ConditionList conditions, HpaControls controls, Ahead ahead) {

        boolean preview() {
            return controls.mode() == Mode.PREVIEW;
        }

        ControlsTrace controlsTrace() {
            return ControlsTrace.of(controls);
        }

        String reference() {
            CrossVersionObjectReference ref = hpa.getSpec() == null ? null : hpa.getSpec().getScaleTargetRef();
            return ref == null ? "<none>/" + namespace : ref.getKind() + "/" + namespace + "/" + ref.getName();
        }

        int originalDesired() {
            return original.getDesiredReplicas() == null ? 0 : original.getDesiredReplicas();
        }
    }

    /** What the scheduled rules and the prediction did at this sync, for the trace (set as the sync goes). */
    private static final class Ahead {
        ScheduleTrace schedule = ScheduleTrace.NONE;
        PredictionTrace prediction = PredictionTrace.NONE;
    }

    /** Syncs one HPA under the controls of its annotations ({@link HpaControls#of}). Never throws. */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler hpa) {
        Parsed<HpaControls> controls;
        try {
            controls = HpaControls.of(hpa);
        } catch (RuntimeException e) {
            controls = Parsed.invalid("internal error while reading the controls: " + e);
        }
        return reconcile(hpa, controls);
    }

    /** Syncs one HPA under the given controls (the driver read them from the HPA's annotations or fields). Never throws. */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler hpa, Parsed<HpaControls> controls) {
        String key = keyOf(hpa);
        long now = clock.millis();
        HorizontalPodAutoscalerStatus original = hpa == null || hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus() : hpa.getStatus();
        try {
            if (hpa == null || hpa.getMetadata() == null) {
                throw new IllegalArgumentException("the HPA has no metadata");
            }
            HpaControls valid = controls instanceof Parsed.Valid<HpaControls> v ? v.value() : HpaControls.NONE;
            Sync s = new Sync(hpa, key, hpa.getMetadata().getNamespace(), now, original,
                    new ConditionList(original.getConditions(), formatTime(now)), valid, new Ahead());
            noteOtherWriter(s);
            if (controls instanceof Parsed.Invalid<HpaControls> invalid) {
                return failControls(s, invalid.message());
            }
            if (valid.mode() == Mode.SUSPENDED) {
                return suspended(s);
            }
            return reconcileAutoscaler(s);
        } catch (RuntimeException e) {
            String msg = "internal error while reconciling " + key + ": " + e;
            return new ReconcileOutcome(failure(key, now, -1, -1, -1, ErrorKind.INTERNAL, null, msg, ControlsTrace.NONE), original, false, List.of());
        }
    }

    /**
     * ConflictingController: set (True, reason {@value #STATUS_WRITTEN_BY_ANOTHER}) with a Warning event when the status
     * port has seen another writer of the status and the condition is not set yet, so both come once per conflict, not
     * at every sync; removed once the port knows nobody else wrote the status lately; left as it is while it cannot tell.
     * It stands beside the other conditions on every path (a conflict stops nothing: the other writer is what must stop).
     */
    private void noteOtherWriter(Sync s) {
        OtherStatusWriter other = statusWriter.otherWriter(s.hpa());
        if (other.message() != null) {
            if (!s.conditions().isTrue(ConditionList.CONFLICTING_CONTROLLER)) {
                events.record(s.hpa(), EventRecorder.Type.Warning, CONFLICTING_CONTROLLER, other.message());
                s.conditions().set(ConditionList.CONFLICTING_CONTROLLER, true, STATUS_WRITTEN_BY_ANOTHER, other.message());
            }
        } else if (other.known()) {
            s.conditions().remove(ConditionList.CONFLICTING_CONTROLLER);
        }
    }

    /**
     * The effective minReplicas: while a scheduled rule is active, {@code max(spec.minReplicas, rule's minReplicas)}
     * capped by maxReplicas (the highest rule wins among overlapping ones); otherwise spec.minReplicas. The trace
     * names the rule in force.
     */
    private static int scheduledMinReplicas(Sync s, int specMinReplicas, int maxReplicas) {
        Schedules schedules = s.controls().schedules();
        if (schedules == null) {
            return specMinReplicas;
        }
        Optional<Schedules.ActiveRule> active = schedules.activeAt(Instant.ofEpochMilli(s.now()));
        int min = active.map(a -> Math.min(Math.max(specMinReplicas, a.minReplicas()), Math.max(specMinReplicas, maxReplicas)))
                .orElse(specMinReplicas);
        s.ahead().schedule = new ScheduleTrace(active.map(Schedules.ActiveRule::describe).orElse(null), specMinReplicas, min);
        return min;
    }

    /**
     * Controls that cannot be read: the HPA does not scale (no scale, pod or metric is read, no scale written),
     * ScalingActive=False with the message naming every annotation or field at fault and what it accepts, a
     * Warning event. The history is left as it is.
     */
    private ReconcileOutcome failControls(Sync s, String message) {
        String reason = message.startsWith(ControlAnnotations.PREFIX) ? INVALID_ANNOTATION : INVALID_SPEC;
        events.record(s.hpa(), EventRecorder.Type.Warning, reason, message);
        s.conditions().set(ConditionList.SCALING_ACTIVE, false, reason, "the HPA does not scale until its controls are fixed: " + message);
        DecisionTrace trace = failure(s.key(), s.now(), -1, -1, -1, ErrorKind.SPEC, reason, message, ControlsTrace.NONE);
        StatusUpdate update = updateStatusIfNeeded(s, withConditions(s), trace);
        return new ReconcileOutcome(trace, update.status(), update.written(), List.of());
    }

    /**
     * {@link Mode#SUSPENDED}: no scale, pod or metric is read, nothing is written but ScalingActive=False
     * {@value #SUSPENDED} (once: the status is written only when it changed), no event. The history is kept as it
     * is, except the metrics' failures: nothing is observed while suspended, so a failure run ends.
     */
    private ReconcileOutcome suspended(Sync s) {
        HpaHistory history = histories.of(s.key());
        if (MetricFallback.anyRemembered(history)) {
            MetricFallback.forgetAll(history, s.hpa(), events, s.now(), "", false);
        }
        s.conditions().set(ConditionList.SCALING_ACTIVE, false, SUSPENDED,
                "the HPA is suspended (mode Suspended): no metrics are read and the target's scale is not written");
        DecisionTrace trace = failure(s.key(), s.now(), -1, -1, -1, ErrorKind.NONE, null, null, s.controlsTrace());
        StatusUpdate update = updateStatusIfNeeded(s, withConditions(s), trace);
        return new ReconcileOutcome(trace, update.status(), update.written(), List.of());
    }

    /** The HPA's status as it was, with the conditions this sync set. */
    private static HorizontalPodAutoscalerStatus withConditions(Sync s) {
        HorizontalPodAutoscalerStatus next = copyOf(s.original());
        next.setConditions(s.conditions().toList());
        return next;
    }

    private ReconcileOutcome reconcileAutoscaler(Sync s) {
        HorizontalPodAutoscalerSpec spec = s.hpa().getSpec();
        CrossVersionObjectReference ref = spec == null ? null : spec.getScaleTargetRef();
        if (ref == null || isBlank(ref.getKind()) || isBlank(ref.getName())) {
            return failGetScale(s, "the HPA has no scaleTargetRef with a kind and a name", true);
        }
        String badVersion = checkApiVersion(ref.getApiVersion());
        if (badVersion != null) {
            return failGetScale(s, badVersion, true);
        }
        ScaleTarget scale;
        try {
            scale = scales.get(s.namespace(), ref);
        } catch (ApiException e) {
            return failGetScale(s, e.getMessage(), false);
        }
        ConditionList conditions = s.conditions();
        conditions.set(ConditionList.ABLE_TO_SCALE, true, "SucceededGetScale", "the HPA controller was able to get the target's current scale");
        int currentReplicas = scale.specReplicas();
        String badBounds = checkReplicaBounds(spec.getMinReplicas(), spec.getMaxReplicas());
        if (badBounds != null) {
            return failSpec(s, currentReplicas, -1, -1, "InvalidReplicaBounds", badBounds,
                    "invalid replica bounds for " + s.reference() + ": " + badBounds);
        }
        HpaHistory history = histories.of(s.key());
        history.recordInitialRecommendation(currentReplicas, s.now());
        if (s.controls().fallback() == null && MetricFallback.anyRemembered(history)) {
            MetricFallback.forgetAll(history, s.hpa(), events, s.now(), "the fallback control was removed", true);
        }

        int maxReplicas = spec.getMaxReplicas();
        int specMinReplicas = spec.getMinReplicas() != null ? spec.getMinReplicas() : 1;
        int minReplicas = scheduledMinReplicas(s, specMinReplicas, maxReplicas);
        if (s.controls().predict() == null) {
            prediction.stop(s.key(), history);
        } else {
            Optional<String> tooMuch = s.controls().predict().capacityProblem(spec.getMetrics() == null ? 1 : Math.max(1, spec.getMetrics().size()));
            if (tooMuch.isPresent()) {
                return failControls(s, PredictAnnotation.NAME + ": " + tooMuch.get());
            }
        }
        List<MetricSpec> metricSpecs = metricSpecs(spec);

        boolean scaleToZero = config.scaleToZeroEnabled();
        boolean hasObjectOrExternal = metricSpecs.stream().anyMatch(m -> m != null && ("Object".equals(m.getType()) || "External".equals(m.getType())));
        String zeroState = null;
        String rescaleRule = null;
        String rescaleReason = "";
        int desiredReplicas = 0;
        boolean computeMetrics = true;
        boolean rescale = true;
        if (currentReplicas == 0) {
            // upstream shouldComputeMetricsForZeroReplicas: only a target this HPA scaled to zero is scaled from zero
            boolean scaledToZeroCondition = scaleToZero && conditions.isTrue(ConditionList.SCALED_TO_ZERO);
            boolean waking = minReplicas != 0 && scaledToZeroCondition;
            computeMetrics = waking || (scaledToZeroCondition && hasObjectOrExternal);
            zeroState = waking ? DecisionTrace.WAKING_FROM_ZERO : computeMetrics ? DecisionTrace.AT_ZERO_BY_HPA : DecisionTrace.AT_ZERO_DISABLED;
            if (!computeMetrics) {
                rescale = false;
                rescaleRule = DecisionTrace.SCALING_DISABLED_AT_ZERO;
                conditions.set(ConditionList.SCALING_ACTIVE, false, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero");
                if (!scaleToZero) {
                    conditions.remove(ConditionList.SCALED_TO_ZERO);
                }
            }
        } else if (currentReplicas > maxReplicas) {
            rescaleRule = DecisionTrace.ABOVE_MAX_REPLICAS;
            rescaleReason = DecisionTrace.ABOVE_MAX_REPLICAS;
            desiredReplicas = maxReplicas;
            computeMetrics = false;
        } else if (currentReplicas < minReplicas) {
            rescaleRule = DecisionTrace.BELOW_MIN_REPLICAS;
            rescaleReason = s.ahead().schedule.raised() ? DecisionTrace.BELOW_MIN_REPLICAS + " raised by " + s.ahead().schedule.activeRule()
                    : DecisionTrace.BELOW_MIN_REPLICAS;
            desiredReplicas = minReplicas;
            computeMetrics = false;
        }

        Behavior behavior = null;
        if (spec.getBehavior() != null) {
            try {
                behavior = Behavior.withDefaults(spec.getBehavior(), (int) config.downscaleStabilization().toSeconds());
            } catch (IllegalArgumentException e) {
                String msg = "invalid behavior: " + e.getMessage();
                return failSpec(s, currentReplicas, minReplicas, maxReplicas, "InvalidBehavior", msg, msg);
            }
        }
        Retention retention = Retention.of(behavior, config.downscaleStabilization().toMillis());

        ReplicasForMetrics metrics = null;
        Normalization normalization = null;
        if (computeMetrics) {
            Tolerances tolerances = Behavior.tolerances(behavior, config.tolerance());
            metrics = computeReplicasForMetrics(s, scale, metricSpecs, tolerances, history);
            if (metrics.replicas() < 0) {
                saveHistory(s, history, retention, behavior, currentReplicas, currentReplicas);
                previewHolds(s, "the metrics give no recommendation");
                HorizontalPodAutoscalerStatus status = setStatus(s, currentReplicas, s.originalDesired(), metrics.statuses(), false);
                DecisionTrace trace = trace(s, currentReplicas, minReplicas, maxReplicas, metrics, null, null, zeroState, -1,
                        Action.NONE, false, "", metrics.errorKind(), metrics.errorReason(),
                        "failed to compute desired number of replicas based on listed metrics for " + s.reference() + ": " + metrics.error());
                StatusUpdate update = updateStatusIfNeeded(s, status, trace);
                events.record(s.hpa(), EventRecorder.Type.Warning, "FailedComputeMetricsReplicas", metrics.error());
                return new ReconcileOutcome(trace, update.status(), update.written(), metrics.computations());
            }
            String rescaleMetric = "";
            if (metrics.replicas() > desiredReplicas) {
                desiredReplicas = metrics.replicas();
                rescaleMetric = metrics.metric();
            }
            if (s.controls().predict() != null) {
                PredictionTrace p = prediction.predict(s.key(), history, s.controls().predict(), metrics.identities(), metrics.traces(),
                        currentReplicas, scale.statusReplicas(), maxReplicas, tolerances, s.now());
                if (p.replicas() > desiredReplicas) {
                    int predicted = p.replicas();
                    p = new PredictionTrace(p.setting(), p.metrics(), predicted, true, p.note());
                    desiredReplicas = predicted;
                    rescaleMetric = "the load predicted " + GoDuration.format(s.controls().predict().horizon()) + " ahead for "
                            + p.metrics().stream().filter(m -> m.replicas() == predicted).findFirst().orElseThrow().metric();
                }
                s.ahead().prediction = p;
            }
            if (desiredReplicas > currentReplicas) {
                MetricTrace selected = metrics.selected() < 0 ? null : metrics.traces().get(metrics.selected());
                rescaleReason = selected != null && selected.fallback() && !s.ahead().prediction.raised()
                        ? "fallback replicas for " + selected.described() + ", failing since " + formatTime(selected.failingSince())
                        : rescaleMetric + " above target";
            }
            if (desiredReplicas < currentReplicas) {
                rescaleReason = "All metrics below target";
            }
            normalization = Normalizer.normalizeDesiredReplicas(history, s.now(), behavior, config.downscaleStabilization().toMillis(),
                    currentReplicas, desiredReplicas, minReplicas, maxReplicas);
            conditions.set(ConditionList.ABLE_TO_SCALE, true, normalization.ableToScaleReason(), normalization.ableToScaleMessage());
            conditions.set(ConditionList.SCALING_LIMITED, normalization.limited(), normalization.limitReason(), normalization.limitMessage());
            desiredReplicas = normalization.replicas();
            if (normalization.wokeFromZero() && rescaleReason.isEmpty()) {
                rescaleReason = DecisionTrace.BELOW_MIN_REPLICAS;
            }
            rescale = desiredReplicas != currentReplicas;
        }
        List<MetricStatus> metricStatuses = metrics == null ? null : metrics.statuses();
        List<MetricComputation> computations = metrics == null ? List.of() : metrics.computations();
        Action action = !rescale ? Action.NONE : desiredReplicas > currentReplicas ? Action.SCALE_UP : Action.SCALE_DOWN;

        if (s.preview()) {
            saveHistory(s, history, retention, behavior, currentReplicas, currentReplicas); // a preview writes no scale, records no event
            return preview(s, currentReplicas, minReplicas, maxReplicas, metrics, rescaleRule, normalization, zeroState,
                    rescale ? desiredReplicas : currentReplicas, action, rescaleReason);
        }
        // kept before the scale is written: a new leader never meets a scale whose event it does not know
        String unkept = saveHistory(s, history, retention, behavior, currentReplicas, rescale ? desiredReplicas : currentReplicas);
        if (rescale && unkept != null) {
            // the scale would outlive its event if this instance stopped now: not written, tried again next sync
            conditions.set(ConditionList.ABLE_TO_SCALE, false, FAILED_UPDATE_HISTORY,
                    "the HPA controller did not update the target scale: its history could not be kept: " + unkept);
            DecisionTrace trace = trace(s, currentReplicas, minReplicas, maxReplicas, metrics, rescaleRule, normalization, zeroState,
                    desiredReplicas, action, false, rescaleReason, ErrorKind.INTERNAL, FAILED_UPDATE_HISTORY,
                    "did not rescale " + s.reference() + ": its history could not be kept: " + unkept);
            StatusUpdate update = updateStatusIfNeeded(s, setStatus(s, currentReplicas, s.originalDesired(), metricStatuses, false), trace);
            return new ReconcileOutcome(trace, update.status(), update.written(), computations);
        }
        if (rescale) {
            String failure = writeScale(s.namespace(), ref, scale, desiredReplicas);
            if (failure != null) {
                events.record(s.hpa(), EventRecorder.Type.Warning, "FailedRescale",
                        "New size: " + desiredReplicas + "; reason: " + rescaleReason + "; error: " + failure);
                conditions.set(ConditionList.ABLE_TO_SCALE, false, "FailedUpdateScale", "the HPA controller was unable to update the target scale: " + failure);
                DecisionTrace trace = trace(s, currentReplicas, minReplicas, maxReplicas, metrics, rescaleRule, normalization, zeroState,
                        desiredReplicas, action, false, rescaleReason, ErrorKind.INTERNAL, "FailedUpdateScale",
                        "failed to rescale " + s.reference() + ": " + failure);
                StatusUpdate update = updateStatusIfNeeded(s, setStatus(s, currentReplicas, s.originalDesired(), metricStatuses, false), trace);
                return new ReconcileOutcome(trace, update.status(), update.written(), computations);
            }
            conditions.set(ConditionList.ABLE_TO_SCALE, true, "SucceededRescale", "the HPA controller was able to update the target scale to " + desiredReplicas);
            events.record(s.hpa(), EventRecorder.Type.Normal, "SuccessfulRescale", "New size: " + desiredReplicas + "; reason: " + rescaleReason);
            history.recordScaleEvent(behavior, currentReplicas, desiredReplicas, s.now());
            if (scaleToZero) {
                if (currentReplicas > 0 && desiredReplicas == 0 && minReplicas == 0 && hasObjectOrExternal) {
                    conditions.set(ConditionList.SCALED_TO_ZERO, true, "ScaledToZero", "the HPA controller scaled the workload to zero");
                    zeroState = DecisionTrace.SCALED_TO_ZERO;
                } else {
                    conditions.set(ConditionList.SCALED_TO_ZERO, false, "NotScaledToZero", "the HPA controller did not scale the workload to zero");
                }
            } else {
                conditions.remove(ConditionList.SCALED_TO_ZERO);
            }
        } else {
            desiredReplicas = currentReplicas;
        }

        return decided(s, currentReplicas, minReplicas, maxReplicas, metrics, rescaleRule, normalization, zeroState, desiredReplicas, action,
                rescale, rescaleReason);
    }

    /**
     * {@link Mode#PREVIEW}: the decision made as in Auto, not written. AbleToScale=False {@value #PREVIEW} says what
     * would have been written, a would-be rescale is a Normal {@value #PREVIEW_RESCALE} event, status.desiredReplicas is
     * the would-be count, lastScaleTime stays. The history stays what Auto would find: the recommendation was recorded
     * (the stabilization windows hold recommendations whether or not they were written), but no scale event is, because
     * the target did not change: the policies limit changes of the target, and after a switch to Auto they must count
     * the changes that happened, not the ones previewed.
     */
    private ReconcileOutcome preview(Sync s, int currentReplicas, int minReplicas, int maxReplicas, ReplicasForMetrics metrics,
                                     String rescaleRule, Normalization normalization, String zeroState, int desiredReplicas, Action action,
                                     String rescaleReason) {
        String would = action == Action.NONE ? "would keep " + currentReplicas + " replicas"
                : "would scale from " + currentReplicas + " to " + desiredReplicas + " (" + rescaleReason + ")";
        if (normalization != null) {
            would += "; " + normalization.ableToScaleReason() + ": " + normalization.ableToScaleMessage();
        }
        previewHolds(s, would);
        if (action != Action.NONE) {
            events.record(s.hpa(), EventRecorder.Type.Normal, PREVIEW_RESCALE, "New size: " + desiredReplicas + "; reason: " + rescaleReason
                    + "; not written (mode Preview)");
        }
        return decided(s, currentReplicas, minReplicas, maxReplicas, metrics, rescaleRule, normalization, zeroState, desiredReplicas, action,
                false, rescaleReason);
    }

    /**
     * The end of a sync that reached its decision (Auto, or Preview with {@code rescaled} false): the status with
     * {@code desiredReplicas}, written unless unchanged, and the trace, which names a status that could not be written.
     */
    private ReconcileOutcome decided(Sync s, int currentReplicas, int minReplicas, int maxReplicas, ReplicasForMetrics metrics,
                                     String rescaleRule, Normalization normalization, String zeroState, int desiredReplicas, Action action,
                                     boolean rescaled, String rescaleReason) {
        DecisionTrace decided = trace(s, currentReplicas, minReplicas, maxReplicas, metrics, rescaleRule, normalization, zeroState,
                desiredReplicas, action, rescaled, rescaleReason, metrics == null ? ErrorKind.NONE : metrics.errorKind(),
                metrics == null ? null : metrics.errorReason(), metrics == null ? null : metrics.error());
        StatusUpdate update = updateStatusIfNeeded(s, setStatus(s, currentReplicas, desiredReplicas, metrics == null ? null : metrics.statuses(),
                rescaled), decided);
        DecisionTrace trace = update.failure() == null ? decided : failedStatus(s, decided);
        return new ReconcileOutcome(trace, update.status(), update.written(), metrics == null ? List.of() : metrics.computations());
    }

    /** In Preview, AbleToScale=False {@value #PREVIEW} with what the sync would do. */
    private static void previewHolds(Sync s, String would) {
        if (s.preview()) {
            s.conditions().set(ConditionList.ABLE_TO_SCALE, false, PREVIEW, "mode Preview: the HPA controller does not write the target's scale; "
                    + would);
        }
    }

    /**
     * What {@link #computeReplicasForMetrics} gives: the recommendation (-1 when there is none to act on),
     * the winning metric, every metric's trace, status entry and timing, and the error to report.
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
    private record ReplicasForMetrics(int replicas, String metric, int selected, String verdict, int rawDesired, List<MetricTrace> traces,
                                      List<MetricStatus> statuses, List<MetricComputation> computations, String error, ErrorKind errorKind,
                                      String errorReason, List<String> identities) {

        static ReplicasForMetrics unusableSelector(SelectorCheck check) {
            return new ReplicasForMetrics(-1, null, -1, null, -1, List.of(), null, List.of(), check.error(), ErrorKind.INTERNAL, check.reason(),
                    List.of());
        }
    }

    /**
     * Every metric together (upstream {@code computeReplicasForMetrics}): the largest proposal wins; a failed
     * metric does not block a scale-up proposed by the others, but blocks a scale-down. With the fallback control,
     * a metric that has failed long enough proposes the fallback replicas instead ({@link MetricFallback}): it
     * enters the max like any proposal and blocks nothing.
     */
    private ReplicasForMetrics computeReplicasForMetrics(Sync s, ScaleTarget scale, List<MetricSpec> metricSpecs, Tolerances tolerances,
                                                         HpaHistory history) {
        SelectorCheck check = validateSelector(s, scale.selector());
        if (check.selector() == null) {
            return ReplicasForMetrics.unusableSelector(check);
        }
        MetricEvaluator evaluator = evaluatorFor(s.controls());
        MetricFallback fallback = new MetricFallback(s.controls().fallback(), history, s.hpa(), events, s.now());
        List<MetricTrace> inFallback = new ArrayList<>();
        MetricEvaluator.Context ctx = new MetricEvaluator.Context(s.namespace(), check.selector(), scale.specReplicas(), scale.statusReplicas(),
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

    /** The target's selector, parsed, or the error that makes it unusable and its reason (the condition and event already set). */
    private record SelectorCheck(Selector selector, String error, String reason) {
    }

    private SelectorCheck validateSelector(Sync s, String text) {
        if (text == null || text.isEmpty()) {
            String error = "selector is required";
            events.record(s.hpa(), EventRecorder.Type.Warning, "SelectorRequired", error);
            s.conditions().set(ConditionList.SCALING_ACTIVE, false, "InvalidSelector", "the HPA target's scale is missing a selector");
            return new SelectorCheck(null, error, "InvalidSelector");
        }
        Selector selector;
        try {
            selector = parsedSelector(text);
        } catch (IllegalArgumentException e) {
            String error = "couldn't convert selector into a corresponding internal selector object: " + e.getMessage();
            events.record(s.hpa(), EventRecorder.Type.Warning, "InvalidSelector", error);
            s.conditions().set(ConditionList.SCALING_ACTIVE, false, "InvalidSelector", error);
            return new SelectorCheck(null, error, "InvalidSelector");
        }
        if (ownership != SelectorOwnership.NONE) {
            List<PodInfo> selected = pods.list(s.namespace(), selector);
            List<String> controllers = ownership.controllers(s.key(), s.namespace(), selector, selected);
            if (controllers.size() > 1) {
                String error = "pods by selector " + text + " are controlled by multiple HPAs: " + controllers;
                events.record(s.hpa(), EventRecorder.Type.Warning, "AmbiguousSelector", error);
                s.conditions().set(ConditionList.SCALING_ACTIVE, false, "AmbiguousSelector", error);
                return new SelectorCheck(null, error, "AmbiguousSelector");
            }
        }
        return new SelectorCheck(selector, null, null);
    }

    /**
     * The parsed form of a scale's selector text, parsed once: a target's selector rarely changes, and every sync
     * needs it. Invalid texts are not kept (they are parsed again, and fail again, at each sync). The map is
     * emptied when it holds more texts than {@value #PARSED_SELECTORS_MAX}.
     */
    private Selector parsedSelector(String text) {
        Selector selector = parsedSelectors.get(text);
        if (selector == null) {
            selector = Selector.parse(text);
            if (parsedSelectors.size() >= PARSED_SELECTORS_MAX) {
                parsedSelectors.clear();
            }
            parsedSelectors.put(text, selector);
        }
        return selector;
    }

    /**
     * Hands the history, as it will be once the scale from {@code currentReplicas} to {@code nextReplicas} is
     * recorded, to the {@link HistoryWriter}. Returns null when it was kept, else the error, which also costs a
     * Warning event {@value #FAILED_UPDATE_HISTORY}: a sync that would scale then does not write the scale; one
     * that would not goes on with the history in memory, and the next sync tries again.
     */
    private String saveHistory(Sync s, HpaHistory history, Retention retention, Behavior behavior, int currentReplicas, int nextReplicas) {
        if (historyWriter == HistoryWriter.NONE) {
            return null;
        }
        HpaHistory.Snapshot planned = history.snapshotWithScaleEvent(behavior, currentReplicas, nextReplicas, s.now());
        try {
            historyWriter.save(s.hpa(), retention.compact(planned, s.now()), retention, s.now());
            return null;
        } catch (ApiException e) {
            events.record(s.hpa(), EventRecorder.Type.Warning, FAILED_UPDATE_HISTORY,
                    "failed to keep the history (recommendations, scale events) for the next leader: " + e.getMessage());
            return e.getMessage();
        }
    }

    /**
     * Writes spec.replicas once, guarded by the resourceVersion of the scale the decision was made from
     * (upstream: one {@code Update}). Returns the error, or null on success. A conflict is not retried: the
     * count was computed from the scale that was read, so writing it over a newer scale would apply an old
     * decision (a 12 -> 6 scale-down nobody stabilized or limited). The sync fails and the next one decides
     * from the fresh scale.
     */
    private String writeScale(String namespace, CrossVersionObjectReference ref, ScaleTarget scale, int replicas) {
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
    private ReconcileOutcome failSpec(Sync s, int currentReplicas, int minReplicas, int maxReplicas, String reason, String message,
                                      String outcomeMessage) {
        events.record(s.hpa(), EventRecorder.Type.Warning, reason, message);
        s.conditions().set(ConditionList.SCALING_ACTIVE, false, reason, "the HPA was unable to compute the replica count: " + message);
        previewHolds(s, "the spec is invalid");
        DecisionTrace trace = failure(s.key(), s.now(), currentReplicas, minReplicas, maxReplicas, ErrorKind.SPEC, reason, outcomeMessage,
                s.controlsTrace());
        StatusUpdate update = updateStatusIfNeeded(s, setStatus(s, currentReplicas, s.originalDesired(), null, false), trace);
        return new ReconcileOutcome(trace, update.status(), update.written(), List.of());
    }

    private ReconcileOutcome failGetScale(Sync s, String message, boolean specError) {
        events.record(s.hpa(), EventRecorder.Type.Warning, "FailedGetScale", message);
        s.conditions().set(ConditionList.ABLE_TO_SCALE, false, "FailedGetScale", "the HPA controller was unable to get the target's current scale: " + message);
        HorizontalPodAutoscalerStatus next = copyOf(s.original());
        next.setConditions(s.conditions().toList());
        DecisionTrace trace = failure(s.key(), s.now(), -1, -1, -1, specError ? ErrorKind.SPEC : ErrorKind.INTERNAL, "FailedGetScale",
                "failed to query scale subresource for " + s.reference() + ": " + message, s.controlsTrace());
        StatusUpdate update = updateStatusIfNeeded(s, next, trace);
        return new ReconcileOutcome(trace, update.status(), update.written(), List.of());
    }

    /** Upstream {@code setStatus}: the status this sync ends with. */
    private static HorizontalPodAutoscalerStatus setStatus(Sync s, int currentReplicas, int desiredReplicas, List<MetricStatus> metricStatuses,
                                                           boolean rescale) {
        HorizontalPodAutoscalerStatus next = new HorizontalPodAutoscalerStatus();
        next.setCurrentReplicas(currentReplicas);
        next.setDesiredReplicas(desiredReplicas);
        next.setLastScaleTime(rescale ? formatTime(s.now()) : s.original().getLastScaleTime());
        next.setCurrentMetrics(metricStatuses == null ? null : new ArrayList<>(metricStatuses));
        next.setConditions(s.conditions().toList());
        next.setObservedGeneration(s.hpa().getMetadata().getGeneration());
        return next;
    }

    /**
     * What {@link #updateStatusIfNeeded} did.
     *
     * @param status  the status the sync ended with
     * @param written whether it was written
     * @param failure the write's error, null when it did not fail
     */
    private record StatusUpdate(HorizontalPodAutoscalerStatus status, boolean written, String failure) {
    }

    /**
     * Upstream {@code updateStatusIfNeeded}: writes the status unless it is what the HPA already has. The writer also
     * gets the decision of this sync (a mirror HPA's status carries it); it does not count in the comparison.
     */
    private StatusUpdate updateStatusIfNeeded(Sync s, HorizontalPodAutoscalerStatus next, DecisionTrace decided) {
        if (StatusEquality.same(s.original(), next)) {
            statusWriter.unchanged(s.hpa());
            return new StatusUpdate(next, false, null);
        }
        try {
            statusWriter.write(s.hpa(), next, decided);
            return new StatusUpdate(next, true, null);
        } catch (ApiException e) {
            events.record(s.hpa(), EventRecorder.Type.Warning, "FailedUpdateStatus", e.getMessage());
            return new StatusUpdate(next, false, e.getMessage());
        }
    }

    /** The trace of a sync that got as far as the metrics (or a rule that decided without them). */
    private static DecisionTrace trace(Sync s, int currentReplicas, int minReplicas, int maxReplicas, ReplicasForMetrics metrics,
                                       String rescaleRule, Normalization normalization, String zeroState, int desiredReplicas,
                                       Action action, boolean rescaled, String reason, ErrorKind error, String errorReason,
                                       String errorMessage) {
        List<String> constraints = normalization != null ? normalization.constraintsApplied()
                : DecisionTrace.ABOVE_MAX_REPLICAS.equals(rescaleRule) ? List.of(Normalization.MAX_REPLICAS)
                : DecisionTrace.BELOW_MIN_REPLICAS.equals(rescaleRule) ? List.of(Normalization.MIN_REPLICAS)
                : List.of();
        return new DecisionTrace(s.key(), s.now(), currentReplicas, minReplicas, maxReplicas,
                metrics == null ? List.of() : metrics.traces(), metrics == null ? -1 : metrics.selected(),
                metrics == null ? null : metrics.verdict(), metrics == null ? -1 : metrics.rawDesired(), rescaleRule, normalization,
                constraints, zeroState, desiredReplicas, action, rescaled, reason, error, errorReason, errorMessage, s.controlsTrace(),
                s.ahead().schedule, s.ahead().prediction);
    }

    /** The trace of a decision whose status could not be written. */
    private static DecisionTrace failedStatus(Sync s, DecisionTrace t) {
        return new DecisionTrace(t.hpa(), t.time(), t.currentReplicas(), t.minReplicas(), t.maxReplicas(), t.metrics(), t.selectedMetric(),
                t.metricsVerdict(), t.rawDesiredReplicas(), t.rescaleRule(), t.normalization(), t.constraintsApplied(), t.scaleToZero(),
                t.desiredReplicas(), t.action(), t.rescaled(), t.reason(), ErrorKind.INTERNAL, "FailedUpdateStatus",
                "failed to update status for " + s.hpa().getMetadata().getName(), t.controls(), t.schedule(), t.prediction());
    }

    /** The trace of a sync that ended before any decision. */
    private static DecisionTrace failure(String key, long now, int currentReplicas, int minReplicas, int maxReplicas, ErrorKind error,
                                         String errorReason, String errorMessage, ControlsTrace controls) {
        return new DecisionTrace(key, now, currentReplicas, minReplicas, maxReplicas, List.of(), -1, null, -1, null, null, List.of(),
                null, -1, Action.NONE, false, "", error, errorReason, errorMessage, controls, ScheduleTrace.NONE, PredictionTrace.NONE);
    }

    private static Action compare(int proposal, Integer current) {
        int c = current == null ? 0 : current;
        return proposal > c ? Action.SCALE_UP : proposal < c ? Action.SCALE_DOWN : Action.NONE;
    }

    /** The metrics an HPA is computed from: its spec's, or the default when it has none. */
    public static List<MetricSpec> metricSpecs(HorizontalPodAutoscalerSpec spec) {
        return spec.getMetrics() == null || spec.getMetrics().isEmpty() ? defaultMetrics() : spec.getMetrics();
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
