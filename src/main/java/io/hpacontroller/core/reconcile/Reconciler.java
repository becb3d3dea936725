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
import io.hpacontroller.core.normalize.ScaleEvents;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.reconcile.Phases.Decision;
import io.hpacontroller.core.reconcile.Phases.End;
import io.hpacontroller.core.reconcile.Phases.Recommendation;
import io.hpacontroller.core.reconcile.Phases.Rule;
import io.hpacontroller.core.reconcile.Phases.ScaleRead;
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

import static io.hpacontroller.core.reconcile.SpecChecks.formatTime;

/**
 * One sync of one HorizontalPodAutoscaler (upstream {@code reconcileAutoscaler}), as named phases that each return a
 * value ({@link Phases}): read the target's scale, the rule (controls, bounds, behavior), the recommendation (every
 * metric: {@link #computeReplicasForMetrics}, the fallback, the prediction), normalize it
 * ({@link Normalizer#normalizeDesiredReplicas}), keep the history (one call), write the scale if it changes; the one
 * exit ({@link StatusUpdates#finish}) writes the status if it changed. The driver hands it the HPA as of its own last
 * status write and the HPA's controls, parsed once. The live controller, the simulator, the conformance runner and
 * {@code explain} all call {@link #reconcile}.
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
    private final StatusUpdates status;
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
        this.status = new StatusUpdates(ports.status(), ports.events());
        this.events = ports.events();
        this.histories = Objects.requireNonNull(histories);
        this.clock = Objects.requireNonNull(clock);
        this.evaluator = new MetricEvaluator(new ReplicaCalculator(config.cpuInitializationPeriod().toMillis(),
                config.initialReadinessDelay().toMillis()), metrics, pods);
        this.selectors = new TargetSelector(pods, ports.ownership(), events);
        this.gate = new ControlsGate(events, histories);
        this.kept = new KeptHistory(ports.history(), events, histories, clock);
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

    /** The HPA was deleted: drop everything remembered about it. */
    public void forget(HpaKey key) {
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
        Parsed<HpaControls> controls;
        try {
            controls = HpaControls.of(hpa);
        } catch (RuntimeException e) {
            controls = Parsed.invalid("internal error while reading the controls: " + e);
        }
        return reconcile(hpa, controls);
    }

    /**
     * Syncs one HPA under the given controls. The driver hands both: the HPA as of its own last status write (the live
     * controller's informer may not hold that write yet: it reads the API's copy then), and the controls it parsed from
     * that HPA, once. The HPA's history is restored first, where it is kept ({@link KeptHistory#restore}). Never throws.
     */
    public ReconcileOutcome reconcile(HorizontalPodAutoscaler hpa, Parsed<HpaControls> controls) {
        HpaKey key = HpaKey.of(hpa);
        long now = clock.millis();
        HorizontalPodAutoscalerStatus original = hpa == null || hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus() : hpa.getStatus();
        try {
            if (hpa == null || hpa.getMetadata() == null) {
                throw new IllegalArgumentException("the HPA has no metadata");
            }
            kept.restore(hpa, now);
            HpaControls valid = controls instanceof Parsed.Valid<HpaControls> v ? v.value() : HpaControls.NONE;
            Sync s = new Sync(hpa, key, hpa.getMetadata().getNamespace(), now, original,
                    new ConditionList(original.getConditions(), formatTime(now)), valid);
            status.noteOtherWriter(s);
            return status.finish(s, controls instanceof Parsed.Invalid<HpaControls> invalid ? ended(s, gate.invalid(s, invalid.message()))
                    : valid.mode() == Mode.SUSPENDED ? ended(s, gate.suspended(s))
                    : reconcileAutoscaler(s));
        } catch (RuntimeException e) {
            String msg = "internal error while reconciling " + key + ": " + e;
            DecisionTrace trace = DecisionTrace.builder(key, now).error(ErrorKind.INTERNAL, null, msg).build();
            return new ReconcileOutcome(trace, original, false, List.of());
        }
    }

    /**
     * Upstream {@code reconcileAutoscaler}, phase by phase: read the scale, the rule (controls, bounds, behavior), the
     * recommendation (metrics, fallback, prediction), normalize it, keep the history, write.
     */
    private End reconcileAutoscaler(Sync s) {
        ScaleRead read = readScale(s);
        if (read.ended() != null) {
            return read.ended();
        }
        Rule rule = rule(s, read.scale());
        if (rule.ended() != null) {
            return rule.ended();
        }
        Recommendation recommendation = recommend(s, read.scale(), rule);
        Decision decision = normalize(s, rule, recommendation);
        String unkept = keepHistory(s, rule, decision);
        return write(s, read, rule, recommendation, decision, unkept);
    }

    /** Upstream's {@code scaleForResourceMappings} step: the target's scale, or the end of a sync that cannot read it. */
    private ScaleRead readScale(Sync s) {
        HorizontalPodAutoscalerSpec spec = s.hpa().getSpec();
        CrossVersionObjectReference ref = spec == null ? null : spec.getScaleTargetRef();
        String badRef = SpecChecks.checkScaleTargetRef(ref);
        if (badRef != null) {
            return ScaleRead.ended(failGetScale(s, badRef, true));
        }
        try {
            ScaleTarget scale = scales.get(s.namespace(), ref);
            s.conditions().set(ConditionList.ABLE_TO_SCALE, true, "SucceededGetScale", "the HPA controller was able to get the target's current scale");
            return new ScaleRead(ref, scale, null);
        } catch (ApiException e) {
            return ScaleRead.ended(failGetScale(s, e.getMessage(), false));
        }
    }

    /**
     * What the sync decides under before any metric: the replica bounds (a scheduled rule may raise minReplicas), the
     * history (its first sync records the current count), the prediction's gate, the rule at or beyond the bounds
     * ({@link ReplicaRule}) and the behavior; or the end of a sync whose spec or controls cannot be decided from.
     */
    private Rule rule(Sync s, ScaleTarget scale) {
        HorizontalPodAutoscalerSpec spec = s.hpa().getSpec();
        int current = scale.specReplicas();
        String badBounds = SpecChecks.checkReplicaBounds(spec.getMinReplicas(), spec.getMaxReplicas());
        if (badBounds != null) {
            return Rule.ended(failSpec(s, current, -1, -1, "InvalidReplicaBounds", badBounds, "invalid replica bounds for " + s.reference() + ": " + badBounds));
        }
        HpaHistory history = histories.of(s.key());
        Normalizer.recordInitialRecommendation(history, current, s.now());
        if (s.controls().fallback() == null && MetricFallback.anyRemembered(histories.metricFailures(s.key()))) {
            MetricFallback.forgetAll(histories.metricFailures(s.key()), s.hpa(), events, s.now(), "the fallback control was removed", true);
        }
        int max = spec.getMaxReplicas();
        ScalingAhead.Floor floor = ScalingAhead.minReplicas(s.controls(), s.now(), spec.getMinReplicas() != null ? spec.getMinReplicas() : 1, max);
        Optional<String> badPrediction = ahead.check(s.key(), histories.learnedLoad(s.key()), s.controls().predict(), spec);
        if (badPrediction.isPresent()) {
            return Rule.ended(ended(s, gate.invalid(s, badPrediction.get())));
        }
        List<MetricSpec> metricSpecs = metricSpecs(spec);
        boolean objectOrExternal = metricSpecs.stream().anyMatch(m -> m != null && ("Object".equals(m.getType()) || "External".equals(m.getType())));
        ReplicaRule replicas = ReplicaRule.of(s, config.scaleToZeroEnabled(), current, floor.minReplicas(), max, objectOrExternal, floor.schedule());
        Behavior behavior;
        try {
            behavior = spec.getBehavior() == null ? null : Behavior.withDefaults(spec.getBehavior(), (int) config.downscaleStabilization().toSeconds());
        } catch (IllegalArgumentException e) {
            String msg = "invalid behavior: " + e.getMessage();
            return Rule.ended(failSpec(s, current, floor.minReplicas(), max, "InvalidBehavior", msg, msg));
        }
        return new Rule(current, floor.minReplicas(), max, floor.schedule(), metricSpecs, objectOrExternal, replicas, history, behavior,
                Retention.of(behavior, config.downscaleStabilization().toMillis()), null);
    }

    /**
     * What the metrics recommend ({@link #computeReplicasForMetrics}), raised by the prediction when it is higher; the
     * rule's count when a rule decides without the metrics.
     */
    private Recommendation recommend(Sync s, ScaleTarget scale, Rule rule) {
        ReplicaRule by = rule.replicas();
        if (!by.computeMetrics()) {
            return new Recommendation(null, by.desiredReplicas(), by.rescaleReason(), PredictionTrace.NONE);
        }
        Tolerances tolerances = Behavior.tolerances(rule.behavior(), config.tolerance());
        ReplicasForMetrics metrics = computeReplicasForMetrics(s, scale, rule.metricSpecs(), tolerances);
        if (metrics.replicas() < 0) {
            return new Recommendation(metrics, -1, "", PredictionTrace.NONE);
        }
        boolean byMetrics = metrics.replicas() > by.desiredReplicas();
        int desired = byMetrics ? metrics.replicas() : by.desiredReplicas();
        PredictionTrace prediction = s.controls().predict() == null ? PredictionTrace.NONE
                : ahead.predict(s.key(), histories.learnedLoad(s.key()), s.controls().predict(), metrics.identities(), metrics.traces(), rule.current(),
                        scale.statusReplicas(), rule.max(), tolerances, s.now(), desired);
        String metric = prediction.raised() ? ScalingAhead.rescaleMetric(prediction, s.controls().predict()) : byMetrics ? metrics.metric() : "";
        desired = prediction.raised() ? prediction.replicas() : desired;
        return new Recommendation(metrics, desired, rescaleReason(metrics.selectedTrace(), prediction, metric, rule.current(), desired,
                by.rescaleReason()), prediction);
    }

    /** The rescale event's reason for a recommendation of {@code desired} replicas. */
    private static String rescaleReason(MetricTrace selected, PredictionTrace prediction, String metric, int current, int desired, String otherwise) {
        if (desired > current) {
            return selected != null && selected.fallback() && !prediction.raised()
                    ? "fallback replicas for " + selected.described() + ", failing since " + formatTime(selected.failingSince())
                    : metric + " above target";
        }
        return desired < current ? "All metrics below target" : otherwise;
    }

    /**
     * Upstream {@code normalizeDesiredReplicas} / {@code normalizeDesiredReplicasWithBehaviors}: stabilized, rate-limited
     * and bounded by the {@link Normalizer}, which sets AbleToScale and ScalingLimited. A rule's count goes as it is.
     */
    private Decision normalize(Sync s, Rule rule, Recommendation recommendation) {
        if (recommendation.metrics() == null) {
            return new Decision(recommendation.replicas(), rule.replicas().rescale(), recommendation.reason(), null);
        }
        if (recommendation.failed()) {
            return new Decision(rule.current(), false, "", null);
        }
        int current = rule.current();
        Normalization n = Normalizer.normalizeDesiredReplicas(rule.history(), s.now(), rule.behavior(), config.downscaleStabilization().toMillis(),
                current, recommendation.replicas(), rule.min(), rule.max());
        s.conditions().set(ConditionList.ABLE_TO_SCALE, true, n.ableToScaleReason(), n.ableToScaleMessage());
        s.conditions().set(ConditionList.SCALING_LIMITED, n.limited(), n.limitReason(), n.limitMessage());
        boolean rescale = n.replicas() != current;
        String reason = recommendation.reason();
        if (n.wokeFromZero()) {
            reason = reason.isEmpty() ? DecisionTrace.BELOW_MIN_REPLICAS : reason;
        } else if (rescale && Integer.signum(n.replicas() - current) != Integer.signum(n.recommendation() - current)) {
            reason = DecisionSummary.normalizedReason(n); // upstream leaves it empty, or the metrics' opposite
        }
        return new Decision(n.replicas(), rescale, reason, n);
    }

    /**
     * The one call that keeps the history for the next leader ({@link KeptHistory#save}), before any scale is written:
     * with the scale event the write will record, when one will be written (not in Preview). Returns the error, null
     * when it was kept.
     */
    private String keepHistory(Sync s, Rule rule, Decision decision) {
        int next = decision.rescale() && !s.preview() ? decision.replicas() : rule.current();
        return kept.save(s, rule.history(), rule.retention(), rule.behavior(), rule.current(), next);
    }

    /**
     * The end of a sync that read the scale: no recommendation (the metrics failed), a preview, no change, or the scale
     * written (upstream's {@code Update} of the scale subresource, its SuccessfulRescale event and scale event); a
     * rescale whose history could not be kept is not written.
     */
    private End write(Sync s, ScaleRead read, Rule rule, Recommendation recommendation, Decision decision, String unkept) {
        int current = rule.current();
        if (recommendation.failed()) {
            return metricsFailed(s, rule, recommendation);
        }
        if (s.preview() || !decision.rescale()) {
            int would = decision.rescale() ? decision.replicas() : current;
            if (s.preview()) {
                gate.preview(s, current, decision.normalization(), would, decision.action(current), decision.reason());
            }
            return decided(s, rule, recommendation, decision, would, false, rule.replicas().zeroState());
        }
        if (unkept != null) {
            // the scale would outlive its event if this instance stopped now: not written, tried again next sync
            s.conditions().set(ConditionList.ABLE_TO_SCALE, false, FAILED_UPDATE_HISTORY,
                    "the HPA controller did not update the target scale: its history could not be kept: " + unkept);
            return scaleNotWritten(s, rule, recommendation, decision, FAILED_UPDATE_HISTORY,
                    "did not rescale " + s.reference() + ": its history could not be kept: " + unkept);
        }
        String failure = writeScale(s.namespace(), read.ref(), read.scale(), decision.replicas());
        if (failure != null) {
            events.record(s.hpa(), EventRecorder.Type.Warning, "FailedRescale",
                    "New size: " + decision.replicas() + "; reason: " + decision.reason() + "; error: " + failure);
            s.conditions().set(ConditionList.ABLE_TO_SCALE, false, "FailedUpdateScale", "the HPA controller was unable to update the target scale: " + failure);
            return scaleNotWritten(s, rule, recommendation, decision, "FailedUpdateScale", "failed to rescale " + s.reference() + ": " + failure);
        }
        s.conditions().set(ConditionList.ABLE_TO_SCALE, true, "SucceededRescale", "the HPA controller was able to update the target scale to " + decision.replicas());
        events.record(s.hpa(), EventRecorder.Type.Normal, "SuccessfulRescale", "New size: " + decision.replicas() + "; reason: " + decision.reason());
        // stamped once written, as upstream's storeScaleEvent (time.Now() after the update): a sync slowed
        // between its start and its write does not shorten the next policy period
        ScaleEvents.record(rule.history(), rule.behavior(), current, decision.replicas(), clock.millis());
        String zero = ReplicaRule.scaledToZero(s, config.scaleToZeroEnabled(), current, decision.replicas(), rule.min(), rule.hasObjectOrExternal());
        return decided(s, rule, recommendation, decision, decision.replicas(), true, zero == null ? rule.replicas().zeroState() : zero);
    }

    /**
     * Every metric together (upstream {@code computeReplicasForMetrics}): the largest proposal wins; a failed
     * metric does not block a scale-up proposed by the others, but blocks a scale-down. With the fallback control,
     * a metric that has failed long enough proposes the fallback replicas instead ({@link MetricFallback}): it
     * enters the max like any proposal and blocks nothing.
     */
    private ReplicasForMetrics computeReplicasForMetrics(Sync s, ScaleTarget scale, List<MetricSpec> metricSpecs, Tolerances tolerances) {
        TargetSelector.Check check = selectors.check(s.hpa(), s.key(), s.namespace(), scale.selector(), s.conditions());
        if (check.selector() == null) {
            return ReplicasForMetrics.unusableSelector(check);
        }
        MetricFallback fallback = new MetricFallback(s.controls().fallback(), histories.metricFailures(s.key()), s.hpa(), events, s.now());
        return ReplicasForMetrics.compute(s, scale, check.selector(), metricSpecs, tolerances, evaluatorFor(s.controls()), fallback, events);
    }

    /**
     * The end of a sync that reached its decision (Auto, or Preview with {@code rescaled} false): the status with
     * {@code desiredReplicas}; the trace names a status that could not be written ({@link StatusUpdates#finish}).
     */
    private End decided(Sync s, Rule rule, Recommendation recommendation, Decision decision, int desiredReplicas, boolean rescaled,
                        String zeroState) {
        ReplicasForMetrics metrics = recommendation.metrics();
        DecisionTrace trace = trace(s, rule, recommendation, decision, zeroState)
                .decision(desiredReplicas, decision.action(rule.current()), rescaled, decision.reason())
                .error(metrics == null ? ErrorKind.NONE : metrics.errorKind(), metrics == null ? null : metrics.errorReason(),
                        metrics == null ? null : metrics.error()).build();
        return new End(s.setStatus(rule.current(), desiredReplicas, metrics == null ? null : metrics.statuses(), rescaled), trace,
                computations(metrics), true, null);
    }

    /** A decided rescale that was not written (its history not kept, or the write failed): the status keeps the count. */
    private End scaleNotWritten(Sync s, Rule rule, Recommendation recommendation, Decision decision, String errorReason, String errorMessage) {
        ReplicasForMetrics metrics = recommendation.metrics();
        DecisionTrace trace = trace(s, rule, recommendation, decision, rule.replicas().zeroState())
                .decision(decision.replicas(), decision.action(rule.current()), false, decision.reason())
                .error(ErrorKind.INTERNAL, errorReason, errorMessage).build();
        return new End(s.setStatus(rule.current(), s.originalDesired(), metrics == null ? null : metrics.statuses(), false), trace,
                computations(metrics), false, null);
    }

    /** The metrics give no recommendation: the status keeps the count, and a FailedComputeMetricsReplicas event follows it. */
    private End metricsFailed(Sync s, Rule rule, Recommendation recommendation) {
        ReplicasForMetrics metrics = recommendation.metrics();
        s.previewHolds("the metrics give no recommendation");
        HorizontalPodAutoscalerStatus status = s.setStatus(rule.current(), s.originalDesired(), metrics.statuses(), false);
        DecisionTrace trace = trace(s, rule, recommendation, new Decision(rule.current(), false, "", null), rule.replicas().zeroState())
                .decision(-1, Action.NONE, false, "").error(metrics.errorKind(), metrics.errorReason(),
                        "failed to compute desired number of replicas based on listed metrics for " + s.reference() + ": " + metrics.error())
                .build();
        return new End(status, trace, metrics.computations(), false, metrics.error());
    }

    /** The trace of a sync that read the scale, as its phases decided, without the decision itself and its error. */
    private static DecisionTrace.Builder trace(Sync s, Rule rule, Recommendation recommendation, Decision decision, String zeroState) {
        Normalization n = decision.normalization();
        DecisionTrace.Builder trace = DecisionTrace.builder(s.key(), s.now()).replicas(rule.current(), rule.min(), rule.max())
                .rescaleRule(rule.replicas().rescaleRule()).scaleToZero(zeroState)
                .normalization(n, n == null ? rule.replicas().constraintsApplied() : n.constraintsApplied())
                .controls(s.controlsTrace()).ahead(rule.schedule(), recommendation.prediction());
        ReplicasForMetrics m = recommendation.metrics();
        return m == null ? trace : trace.metrics(m.traces(), m.selected(), m.verdict(), m.rawDesired());
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
    private End failSpec(Sync s, int currentReplicas, int minReplicas, int maxReplicas, String reason, String message, String outcomeMessage) {
        events.record(s.hpa(), EventRecorder.Type.Warning, reason, message);
        s.conditions().set(ConditionList.SCALING_ACTIVE, false, reason, "the HPA was unable to compute the replica count: " + message);
        s.previewHolds("the spec is invalid");
        DecisionTrace trace = s.failure(currentReplicas, minReplicas, maxReplicas, ErrorKind.SPEC, reason, outcomeMessage, s.controlsTrace());
        return new End(s.setStatus(currentReplicas, s.originalDesired(), null, false), trace, List.of(), false, null);
    }

    private End failGetScale(Sync s, String message, boolean specError) {
        events.record(s.hpa(), EventRecorder.Type.Warning, "FailedGetScale", message);
        s.conditions().set(ConditionList.ABLE_TO_SCALE, false, "FailedGetScale", "the HPA controller was unable to get the target's current scale: " + message);
        DecisionTrace trace = s.failure(-1, -1, -1, specError ? ErrorKind.SPEC : ErrorKind.INTERNAL, "FailedGetScale",
                "failed to query scale subresource for " + s.reference() + ": " + message, s.controlsTrace());
        return ended(s, trace);
    }

    /** The end of a sync that read no scale: the status as it was with this sync's conditions. */
    private static End ended(Sync s, DecisionTrace trace) {
        return new End(s.withConditions(), trace, List.of(), false, null);
    }

    /** The metrics an HPA is computed from: its spec's, or the default when it has none. */
    public static List<MetricSpec> metricSpecs(HorizontalPodAutoscalerSpec spec) {
        return spec.getMetrics() == null || spec.getMetrics().isEmpty() ? SpecChecks.defaultMetrics() : spec.getMetrics();
    }
}
