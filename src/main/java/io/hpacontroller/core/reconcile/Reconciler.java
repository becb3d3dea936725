package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.Mode;
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
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.trace.ConditionList;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.PredictionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import io.hpacontroller.core.trace.ReconcileOutcome.MetricComputation;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import static io.hpacontroller.core.reconcile.SpecChecks.formatTime;

/**
 * One sync of one HorizontalPodAutoscaler (upstream {@code reconcileAutoscaler}): read the target's
 * scale, compute every metric ({@link #computeReplicasForMetrics}), normalize the proposal
 * ({@link Normalizer#normalizeDesiredReplicas}), write the scale if it changes, write the status if it
 * changed ({@link #updateStatusIfNeeded}). The live controller, the simulator, the conformance runner
 * and {@code explain} all call {@link #reconcile}.
 *
 * <p>It talks to the world only through its {@link Ports} and reads time only from its clock. It never
 * throws: every failure ends up in a condition, an event and the returned {@link ReconcileOutcome},
 * whose {@link DecisionTrace} records the decision as it was made.
 *
 * <p>The extensions are named steps: the controls gate ({@link HpaControls} from the HPA's annotations or the
 * mirror API's fields: invalid ones stop it with ScalingActive=False {@value #INVALID_ANNOTATION}; {@link Mode#SUSPENDED}
 * reads nothing and writes one condition; {@link Mode#PREVIEW} decides and writes status, conditions and events but
 * never the scale; the warm-up durations replace the flags' for this HPA), the fallback ({@link MetricFallback}),
 * scaling ahead ({@link ScalingAhead}: scheduled rules and prediction), the selector check ({@link TargetSelector})
 * and the kept history ({@link HistoryWriter}). The sync period is the driver's business (the core only names it in
 * the trace). Without controls, upstream's behavior.
 */
public final class Reconciler {

    private final ControllerConfig config;
    private final ScaleClient scales;
    private final PodSource pods;
    private final MetricsSource metrics;
    private final StatusWriter statusWriter;
    private final EventRecorder events;
    private final HistoryStore histories;
    private final Clock clock;
    private final MetricEvaluator evaluator;
    private final TargetSelector selectors;
    private final ControlsGate gate;
    private final KeptHistory kept;
    private final ScalingAhead ahead = new ScalingAhead();

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

    /**
     * @param ports     what one sync reads and writes
     * @param histories each HPA's recommendations and scale events, in memory
     */
    public Reconciler(ControllerConfig config, Ports ports, HistoryStore histories, Clock clock) {
        this.config = Objects.requireNonNull(config);
        this.scales = ports.scales();
        this.pods = ports.pods();
        this.metrics = ports.metrics();
        this.statusWriter = ports.status();
        this.events = ports.events();
        this.histories = Objects.requireNonNull(histories);
        this.clock = Objects.requireNonNull(clock);
        this.evaluator = new MetricEvaluator(new ReplicaCalculator(config.cpuInitializationPeriod().toMillis(),
                config.initialReadinessDelay().toMillis()), metrics, pods);
        this.selectors = new TargetSelector(pods, ports.ownership(), events);
        this.gate = new ControlsGate(events, histories);
        this.kept = new KeptHistory(ports.history(), events, clock);
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

    /** The key of an HPA in its string form ({@link HpaKey#of}). */
    public static String keyOf(HorizontalPodAutoscaler hpa) {
        return HpaKey.of(hpa).toString();
    }

    /** The HPA was deleted: drop everything remembered about it. */
    public void forget(String key) {
        histories.forget(key);
        selectors.forget(key);
        ahead.forget(key);
    }

    /** HPAs whose learned load (predictive scaling) is held decoded, besides their histories. */
    public int predicting() {
        return ahead.predicting();
    }

    /** Syncs one HPA under the controls of its annotations ({@link HpaControls#of}). Never throws. */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler hpa) {
        return reconcile(hpa, current -> {
            try {
                return HpaControls.of(current);
            } catch (RuntimeException e) {
                return Parsed.invalid("internal error while reading the controls: " + e);
            }
        });
    }

    /** Syncs one HPA under the given controls (the driver read them from the HPA's annotations or fields). Never throws. */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler hpa, Parsed<HpaControls> controls) {
        return reconcile(hpa, current -> controls);
    }

    /**
     * Syncs one HPA as the status port gives it ({@link StatusWriter#current}: the driver's copy, or the API's while the
     * driver's cache is behind the port's last write), under the controls {@code controlsOf} reads from that HPA (the
     * driver's cache of them). Its history is restored first, where it is kept ({@link KeptHistory#restore}). Never throws.
     */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler read, Function<HorizontalPodAutoscaler, Parsed<HpaControls>> controlsOf) {
        HorizontalPodAutoscaler hpa = read == null || read.getMetadata() == null ? read : statusWriter.current(read);
        Parsed<HpaControls> controls = controlsOf.apply(hpa);
        String key = keyOf(hpa);
        long now = clock.millis();
        HorizontalPodAutoscalerStatus original = hpa == null || hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus() : hpa.getStatus();
        try {
            if (hpa == null || hpa.getMetadata() == null) {
                throw new IllegalArgumentException("the HPA has no metadata");
            }
            kept.restore(hpa, now);
            HpaControls valid = controls instanceof Parsed.Valid<HpaControls> v ? v.value() : HpaControls.NONE;
            Sync s = new Sync(hpa, key, hpa.getMetadata().getNamespace(), now, original,
                    new ConditionList(original.getConditions(), formatTime(now)), valid, new ScalingAhead.Traces(),
                    DecisionTrace.builder(key, now));
            noteOtherWriter(s);
            if (controls instanceof Parsed.Invalid<HpaControls> invalid) {
                return ended(s, gate.invalid(s, invalid.message()));
            }
            if (valid.mode() == Mode.SUSPENDED) {
                return ended(s, gate.suspended(s));
            }
            return reconcileAutoscaler(s);
        } catch (RuntimeException e) {
            String msg = "internal error while reconciling " + key + ": " + e;
            DecisionTrace trace = DecisionTrace.builder(key, now).error(ErrorKind.INTERNAL, null, msg).build();
            return new ReconcileOutcome(trace, original, false, List.of());
        }
    }

    private ReconcileOutcome reconcileAutoscaler(Sync s) {
        HorizontalPodAutoscalerSpec spec = s.hpa().getSpec();
        CrossVersionObjectReference ref = spec == null ? null : spec.getScaleTargetRef();
        String badRef = SpecChecks.checkScaleTargetRef(ref);
        if (badRef != null) {
            return failGetScale(s, badRef, true);
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
        String badBounds = SpecChecks.checkReplicaBounds(spec.getMinReplicas(), spec.getMaxReplicas());
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
        int minReplicas = ScalingAhead.minReplicas(s.controls(), s.now(), specMinReplicas, maxReplicas, s.ahead());
        Optional<String> badPrediction = ahead.check(s.key(), history, s.controls().predict(), spec);
        if (badPrediction.isPresent()) {
            return ended(s, gate.invalid(s, badPrediction.get()));
        }
        List<MetricSpec> metricSpecs = metricSpecs(spec);
        boolean hasObjectOrExternal = metricSpecs.stream().anyMatch(m -> m != null && ("Object".equals(m.getType()) || "External".equals(m.getType())));
        ReplicaRule rule = ReplicaRule.of(s, config.scaleToZeroEnabled(), currentReplicas, minReplicas, maxReplicas, hasObjectOrExternal);

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
        s.decision().replicas(currentReplicas, minReplicas, maxReplicas).rescaleRule(rule.rescaleRule())
                .normalization(null, rule.constraintsApplied()).scaleToZero(rule.zeroState());

        int desiredReplicas = rule.desiredReplicas();
        String rescaleReason = rule.rescaleReason();
        boolean rescale = rule.rescale();
        ReplicasForMetrics metrics = null;
        Normalization normalization = null;
        if (rule.computeMetrics()) {
            Tolerances tolerances = Behavior.tolerances(behavior, config.tolerance());
            metrics = computeReplicasForMetrics(s, scale, metricSpecs, tolerances, history);
            s.decision().metrics(metrics.traces(), metrics.selected(), metrics.verdict(), metrics.rawDesired());
            if (metrics.replicas() < 0) {
                kept.save(s, history, retention, behavior, currentReplicas, currentReplicas);
                s.previewHolds("the metrics give no recommendation");
                HorizontalPodAutoscalerStatus status = s.setStatus(currentReplicas, s.originalDesired(), metrics.statuses(), false);
                DecisionTrace trace = s.decided(-1, Action.NONE, false, "", metrics.errorKind(), metrics.errorReason(),
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
                PredictionTrace p = ahead.predict(s.key(), history, s.controls().predict(), metrics.identities(), metrics.traces(),
                        currentReplicas, scale.statusReplicas(), maxReplicas, tolerances, s.now(), desiredReplicas);
                if (p.replicas() > desiredReplicas) {
                    desiredReplicas = p.replicas();
                    rescaleMetric = ScalingAhead.rescaleMetric(p, s.controls().predict());
                }
                s.ahead().prediction = p;
            }
            if (desiredReplicas > currentReplicas) {
                MetricTrace selected = metrics.selectedTrace();
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
            s.decision().normalization(normalization, normalization.constraintsApplied());
            desiredReplicas = normalization.replicas();
            rescale = desiredReplicas != currentReplicas;
            if (normalization.wokeFromZero()) {
                rescaleReason = rescaleReason.isEmpty() ? DecisionTrace.BELOW_MIN_REPLICAS : rescaleReason;
            } else if (rescale && Integer.signum(desiredReplicas - currentReplicas) != Integer.signum(normalization.recommendation() - currentReplicas)) {
                rescaleReason = DecisionSummary.normalizedReason(normalization); // upstream leaves it empty, or the metrics' opposite
            }
        }
        Action action = !rescale ? Action.NONE : desiredReplicas > currentReplicas ? Action.SCALE_UP : Action.SCALE_DOWN;

        if (s.preview()) {
            kept.save(s, history, retention, behavior, currentReplicas, currentReplicas); // a preview writes no scale, records no event
            int would = rescale ? desiredReplicas : currentReplicas;
            gate.preview(s, currentReplicas, normalization, would, action, rescaleReason);
            return decided(s, currentReplicas, metrics, would, action, false, rescaleReason);
        }
        // kept before the scale is written: a new leader never meets a scale whose event it does not know
        String unkept = kept.save(s, history, retention, behavior, currentReplicas, rescale ? desiredReplicas : currentReplicas);
        if (rescale && unkept != null) {
            // the scale would outlive its event if this instance stopped now: not written, tried again next sync
            conditions.set(ConditionList.ABLE_TO_SCALE, false, FAILED_UPDATE_HISTORY,
                    "the HPA controller did not update the target scale: its history could not be kept: " + unkept);
            return scaleNotWritten(s, currentReplicas, metrics, desiredReplicas, action, rescaleReason, FAILED_UPDATE_HISTORY,
                    "did not rescale " + s.reference() + ": its history could not be kept: " + unkept);
        }
        if (rescale) {
            String failure = writeScale(s.namespace(), ref, scale, desiredReplicas);
            if (failure != null) {
                events.record(s.hpa(), EventRecorder.Type.Warning, "FailedRescale",
                        "New size: " + desiredReplicas + "; reason: " + rescaleReason + "; error: " + failure);
                conditions.set(ConditionList.ABLE_TO_SCALE, false, "FailedUpdateScale", "the HPA controller was unable to update the target scale: " + failure);
                return scaleNotWritten(s, currentReplicas, metrics, desiredReplicas, action, rescaleReason, "FailedUpdateScale",
                        "failed to rescale " + s.reference() + ": " + failure);
            }
            conditions.set(ConditionList.ABLE_TO_SCALE, true, "SucceededRescale", "the HPA controller was able to update the target scale to " + desiredReplicas);
            events.record(s.hpa(), EventRecorder.Type.Normal, "SuccessfulRescale", "New size: " + desiredReplicas + "; reason: " + rescaleReason);
            // stamped once written, as upstream's storeScaleEvent (time.Now() after the update): a sync slowed
            // between its start and its write does not shorten the next policy period
            history.recordScaleEvent(behavior, currentReplicas, desiredReplicas, clock.millis());
            ReplicaRule.scaledToZero(s, config.scaleToZeroEnabled(), currentReplicas, desiredReplicas, minReplicas, hasObjectOrExternal);
        } else {
            desiredReplicas = currentReplicas;
        }
        return decided(s, currentReplicas, metrics, desiredReplicas, action, rescale, rescaleReason);
    }

    /**
     * Every metric together (upstream {@code computeReplicasForMetrics}): the largest proposal wins; a failed
     * metric does not block a scale-up proposed by the others, but blocks a scale-down. With the fallback control,
     * a metric that has failed long enough proposes the fallback replicas instead ({@link MetricFallback}): it
     * enters the max like any proposal and blocks nothing.
     */
    private ReplicasForMetrics computeReplicasForMetrics(Sync s, ScaleTarget scale, List<MetricSpec> metricSpecs, Tolerances tolerances,
                                                         HpaHistory history) {
        TargetSelector.Check check = selectors.check(s.hpa(), s.key(), s.namespace(), scale.selector(), s.conditions());
        if (check.selector() == null) {
            return ReplicasForMetrics.unusableSelector(check);
        }
        MetricFallback fallback = new MetricFallback(s.controls().fallback(), history, s.hpa(), events, s.now());
        return ReplicasForMetrics.compute(s, scale, check.selector(), metricSpecs, tolerances, evaluatorFor(s.controls()), fallback, events);
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
     * The end of a sync that reached its decision (Auto, or Preview with {@code rescaled} false): the status with
     * {@code desiredReplicas}, written unless unchanged, and the trace, which names a status that could not be written.
     */
    private ReconcileOutcome decided(Sync s, int currentReplicas, ReplicasForMetrics metrics, int desiredReplicas, Action action,
                                     boolean rescaled, String rescaleReason) {
        DecisionTrace decided = s.decided(desiredReplicas, action, rescaled, rescaleReason, metrics == null ? ErrorKind.NONE : metrics.errorKind(),
                metrics == null ? null : metrics.errorReason(), metrics == null ? null : metrics.error());
        StatusUpdate update = updateStatusIfNeeded(s, s.setStatus(currentReplicas, desiredReplicas, metrics == null ? null : metrics.statuses(),
                rescaled), decided);
        DecisionTrace trace = update.failure() == null ? decided : decided.toBuilder().error(ErrorKind.INTERNAL, "FailedUpdateStatus",
                "failed to update status for " + s.hpa().getMetadata().getName()).build();
        return new ReconcileOutcome(trace, update.status(), update.written(), computations(metrics));
    }

    /** A decided rescale that was not written (its history not kept, or the write failed): the status keeps the count. */
    private ReconcileOutcome scaleNotWritten(Sync s, int currentReplicas, ReplicasForMetrics metrics, int desiredReplicas, Action action,
                                             String rescaleReason, String errorReason, String errorMessage) {
        DecisionTrace trace = s.decided(desiredReplicas, action, false, rescaleReason, ErrorKind.INTERNAL, errorReason, errorMessage);
        HorizontalPodAutoscalerStatus status = s.setStatus(currentReplicas, s.originalDesired(), metrics == null ? null : metrics.statuses(), false);
        StatusUpdate update = updateStatusIfNeeded(s, status, trace);
        return new ReconcileOutcome(trace, update.status(), update.written(), computations(metrics));
    }

    private static List<MetricComputation> computations(ReplicasForMetrics metrics) {
        return metrics == null ? List.of() : metrics.computations();
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
        s.previewHolds("the spec is invalid");
        DecisionTrace trace = s.failure(currentReplicas, minReplicas, maxReplicas, ErrorKind.SPEC, reason, outcomeMessage, s.controlsTrace());
        return ended(s, s.setStatus(currentReplicas, s.originalDesired(), null, false), trace);
    }

    private ReconcileOutcome failGetScale(Sync s, String message, boolean specError) {
        events.record(s.hpa(), EventRecorder.Type.Warning, "FailedGetScale", message);
        s.conditions().set(ConditionList.ABLE_TO_SCALE, false, "FailedGetScale", "the HPA controller was unable to get the target's current scale: " + message);
        DecisionTrace trace = s.failure(-1, -1, -1, specError ? ErrorKind.SPEC : ErrorKind.INTERNAL, "FailedGetScale",
                "failed to query scale subresource for " + s.reference() + ": " + message, s.controlsTrace());
        return ended(s, trace);
    }

    /** The end of a sync that read no scale: the status as it was with this sync's conditions, written unless unchanged. */
    private ReconcileOutcome ended(Sync s, DecisionTrace trace) {
        return ended(s, s.withConditions(), trace);
    }

    /** The end of a sync that decided nothing: {@code status} written unless unchanged. */
    private ReconcileOutcome ended(Sync s, HorizontalPodAutoscalerStatus status, DecisionTrace trace) {
        StatusUpdate update = updateStatusIfNeeded(s, status, trace);
        return new ReconcileOutcome(trace, update.status(), update.written(), List.of());
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

    /** The metrics an HPA is computed from: its spec's, or the default when it has none. */
    public static List<MetricSpec> metricSpecs(HorizontalPodAutoscalerSpec spec) {
        return spec.getMetrics() == null || spec.getMetrics().isEmpty() ? SpecChecks.defaultMetrics() : spec.getMetrics();
    }
}
