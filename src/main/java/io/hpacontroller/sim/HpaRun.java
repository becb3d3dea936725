package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.cadence.FreshSlots;
import io.hpacontroller.core.cadence.MetricsPipelines;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.MetricEvaluator;
import io.hpacontroller.core.reconcile.MetricStatuses;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.sim.scenario.MetricsPipeline;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One HPA spec in its own simulated cluster: its workload, the cluster's ports (with faults when the
 * scenario asks for them), the core's {@link Reconciler} on them, and what the run recorded.
 */
final class HpaRun {

    final HorizontalPodAutoscaler hpa;
    final SimulatedWorkload workload;
    final SimulatedCluster cluster;
    final FaultInjection faults;
    final Invariants invariants = new Invariants();
    final List<TimelineRow> timeline = new ArrayList<>();
    private final Reconciler reconciler;
    private final Tolerances tolerances;
    private final VirtualClock clock;
    private final HpaControls controls;
    private final List<MetricSpec> metricSpecs;
    private final Selector podSelector;
    private final long stepMillis;
    private final MetricsPipeline resourceMetrics;
    private final MetricsPipeline customMetrics;
    private final SimulatedMetricsApis metrics;

    /** What the demand asked for at each step of the model, and each sync as {@link ScaleDelays} reads it. */
    final ScaleDelays.Asked asked = new ScaleDelays.Asked();
    final List<ScaleDelays.Sync> delaySyncs = new ArrayList<>();
    /** What the demand asked for, by demand, for the current pods ({@link #askedAt}); at most {@link #ASKED_KNOWN} kept. */
    private final TreeMap<Double, Integer> askedByDemand = new TreeMap<>();
    private static final int ASKED_KNOWN = 4096;
    private int askedPods = -1;
    private int askedSpec = -1;

    long syncs;
    long syncsWithError;
    int replicaChanges;
    long firstScaleUpAfter = -1;
    long coveredAfter = -1;
    private boolean overloadedSinceIncrease;
    long overloadMillis;
    double replicaSeconds;
    int peakReplicas;

    /** When the demand first rises, -1 if it never does. */
    private final long firstIncrease;

    /** This spec's sync period: its sync-period annotation, or the controller flag of its setup. */
    final long syncPeriodMillis;
    /** The time of this spec's next sync. */
    long nextSync;
    /** Its cadence: its cadence annotation, or the controller flag of its setup. */
    private final SyncCadence cadence;
    private final long freshSpreadMillis;
    /**
     * What the fresh cadence learned of this spec's metrics pipeline (each spec runs in a cluster of its own, its pipeline
     * shared with {@link #neighbours} spread HPAs).
     */
    private final MetricsPipelines pipelines = new MetricsPipelines();
    /** The metrics pipeline the spec's first metric is read through (the one its fresh syncs follow), null without one. */
    private final MetricsPipeline followed;
    private final String followedName;
    /** The last whole second the neighbours synced at. */
    private long neighboursAt = Long.MIN_VALUE;

    HpaRun(Scenario scenario, int index, HorizontalPodAutoscaler hpa, VirtualClock clock, long horizonMillis, long firstIncrease) {
        this.hpa = hpa;
        Scenario.SpecSetup setup = scenario.setups().get(index);
        this.firstIncrease = firstIncrease;
        this.clock = clock;
        String target = hpa.getSpec().getScaleTargetRef() != null && hpa.getSpec().getScaleTargetRef().getName() != null
                ? hpa.getSpec().getScaleTargetRef().getName() : "workload";
        this.workload = new SimulatedWorkload(target, setup.workload(), clock.now(), horizonMillis);
        this.faults = new FaultInjection(scenario.faults(), scenario.faults().seed() * 31 + index);
        this.cluster = new SimulatedCluster(workload, clock, scenario.faults().any() ? faults : null);
        ControllerConfig config = setup.controller().config();
        this.tolerances = tolerances(hpa, config);
        this.controls = HpaControls.of(hpa) instanceof Parsed.Valid<HpaControls> v ? v.value() : HpaControls.NONE;
        this.syncPeriodMillis = scenario.syncPeriodMillis(index);
        this.metricSpecs = Reconciler.metricSpecs(hpa.getSpec());
        this.metrics = new SimulatedMetricsApis(workload, setup.resourceMetrics(), setup.customMetrics(), clock, metricSpecs);
        this.podSelector = Selector.ofLabels(workload.labels());
        this.stepMillis = scenario.stepMillis();
        this.resourceMetrics = setup.resourceMetrics();
        this.customMetrics = setup.customMetrics();
        this.nextSync = setup.controller().syncPhaseMillis();
        this.cadence = controls.cadenceOr(setup.controller().cadence());
        this.freshSpreadMillis = setup.controller().freshSpreadMillis();
        String firstType = metricSpecs.isEmpty() ? null : metricSpecs.get(0).getType();
        this.followedName = pipelines.pipelineOf(firstType);
        this.followed = followedName == null ? null : MetricsPipelines.RESOURCE.equals(followedName) ? resourceMetrics : customMetrics;
        this.reconciler = new Reconciler(config, Ports.of(cluster, SelectorOwnership.NONE), new HistoryStore(), clock);
    }

    /** The tolerances the core computes this spec's metrics with: its behavior's where set, the flag's otherwise. */
    private static Tolerances tolerances(HorizontalPodAutoscaler hpa, ControllerConfig config) {
        Behavior behavior = null;
        if (hpa.getSpec().getBehavior() != null) {
            try {
                behavior = Behavior.withDefaults(hpa.getSpec().getBehavior(), (int) config.downscaleStabilization().toSeconds());
            } catch (IllegalArgumentException e) {
                return null; // every sync fails on it and says so
            }
        }
        return Behavior.tolerances(behavior, config.tolerance());
    }

    String name() {
        return hpa.getMetadata().getName();
    }

    /** The first sync at or after {@code t} (before the scenario's start, when the controller starts early: warm-up). */
    void firstSyncAtOrAfter(long t) {
        nextSync = FreshSlots.atOrAfter(t, Math.floorMod(nextSync, syncPeriodMillis), syncPeriodMillis);
    }

    /**
     * After the sync due at {@code due}: the next one. Spread: a period later. Fresh: at the first fresh slot at least a
     * period after it (the live queue's rule: never two syncs closer than the period), a period later while nothing is
     * learned.
     */
    long nextSyncAfter(long due) {
        if (cadence != SyncCadence.FRESH) {
            return due + syncPeriodMillis;
        }
        long epoch = VirtualClock.epochMillis(0);
        OptionalLong next = FreshSlots.next(pipelines.estimate(HpaKey.of(hpa), epoch + due, syncPeriodMillis), HpaKey.of(hpa).toString(),
                epoch + due, syncPeriodMillis, freshSpreadMillis, freshSpreadMillis, true);
        return next.isEmpty() ? due + syncPeriodMillis : next.getAsLong() - epoch;
    }

    /**
     * The fresh cadence learns from every sync of the spec's pipeline. A cluster's metrics-server serves many HPAs: the
     * spec's pipeline is shared with spread HPAs, one at each whole second of the period ({@code neighbour-0} ...), whose
     * pods the kubelet stamps 1 to 10 s before each scrape (a fixed pseudo-random jitter per scrape and neighbour), so
     * the estimator learns from the real node's evidence rather than from the spec's own stamps alone (a lone HPA at a
     * fixed phase cannot tell where in the interval before its sync the scrape was). Called at each step (time {@code t}).
     */
    void neighbours(long t) {
        long second = Math.floorDiv(t, 1000);
        if (cadence != SyncCadence.FRESH || followed == null || second == neighboursAt) {
            return;
        }
        neighboursAt = second;
        long at = second * 1000;
        long k = Math.floorMod(at, syncPeriodMillis) / 1000;
        long scrape = followed.lastScrapeAt(at);
        long jitter = 1000 + Math.floorMod(io.hpacontroller.core.StableHash.of(k + "@" + scrape), 9001L);
        pipelines.observe(HpaKey.of(HpaKey.BUILTIN_GROUP, "neighbours", "neighbour-" + k), followedName,
                VirtualClock.epochMillis(at), VirtualClock.epochMillis(at), VirtualClock.epochMillis(scrape - jitter));
    }

    /**
     * Notes the state at time {@code t} (at or after 0), before the workload runs on for {@code dt}; {@code capacity}
     * is the workload's at {@code t}.
     */
    void observe(long t, long dt, double demand, double capacity) {
        boolean overloaded = demand > capacity;
        if (workload.hasCapacity() && firstIncrease >= 0 && t >= firstIncrease && coveredAfter < 0) {
            if (overloaded) {
                overloadedSinceIncrease = true;
            } else if (overloadedSinceIncrease) {
                coveredAfter = t - firstIncrease;
            }
        }
        if (overloaded) {
            overloadMillis += dt;
        }
        replicaSeconds += workload.podCount() * (dt / 1000.0);
        asked.at(t, askedAt(t, demand));
        invariants.checkStep(t, hpa, workload.specReplicas(), workload.podCount());
        peakReplicas = Math.max(peakReplicas, workload.podCount());
    }

    HpaSummary summary() {
        long covered = !workload.hasCapacity() ? -1 : overloadedSinceIncrease ? coveredAfter : firstIncrease >= 0 ? 0 : -1;
        return new HpaSummary(name(), workload.hasCapacity(), firstScaleUpAfter, covered,
                workload.hasCapacity() ? overloadMillis : -1, replicaSeconds, replicaChanges, peakReplicas, workload.specReplicas(),
                syncs, syncsWithError, faults.metricsFailuresInjected, faults.scaleWriteFailuresInjected, faults.scaleWriteConflictsInjected,
                invariants.checks(), invariants.violationCount());
    }

    /**
     * What the demand asks for at {@code t} ({@link ScaleDelays}). Between two changes of the pods it depends on the demand
     * alone and never falls as the demand grows, so a demand between two known ones that asked for the same count asks for
     * it too: the core is asked again only for a demand outside what is known.
     */
    private int askedAt(long t, double demand) {
        if (workload.podCount() != askedPods || workload.specReplicas() != askedSpec || askedByDemand.size() > ASKED_KNOWN) {
            askedPods = workload.podCount();
            askedSpec = workload.specReplicas();
            askedByDemand.clear();
        }
        Map.Entry<Double, Integer> below = askedByDemand.floorEntry(demand);
        Map.Entry<Double, Integer> above = askedByDemand.ceilingEntry(demand);
        if (below != null && above != null && below.getValue().equals(above.getValue())) {
            return below.getValue();
        }
        int asked = proposal(new SettledMetrics(workload, t, demand, demand, false, stepMillis), t);
        askedByDemand.put(demand, asked);
        return asked;
    }

    /**
     * The highest proposal of the HPA's metrics as the core computes them from {@code metrics} and its pods at {@code now};
     * -1 when none gave one.
     */
    private <S extends MetricsSource & PodSource> int proposal(S metrics, long now) {
        return proposal(metrics, metrics, now);
    }

    private int proposal(MetricsSource metrics, PodSource pods, long now) {
        if (tolerances == null) {
            return -1;
        }
        MetricEvaluator evaluator = reconciler.evaluatorFor(controls, metrics, pods);
        MetricEvaluator.Context ctx = new MetricEvaluator.Context(hpa.getMetadata().getNamespace(), podSelector, workload.specReplicas(),
                workload.podCount(), tolerances, VirtualClock.epochMillis(now));
        int highest = -1;
        for (MetricSpec spec : metricSpecs) {
            MetricTrace m = evaluator.evaluate(ctx, spec).trace();
            if (!m.failed()) {
                highest = Math.max(highest, m.replicas());
            }
        }
        return highest;
    }

    /**
     * What the metrics would have proposed at {@code now} without parts of the way from the demand to the HPA
     * ({@link ScaleDelays.Sync}): sampled now instead of through the pipeline's delay; then also with every pod Ready;
     * then also uncapped. Each sample covers the pipeline's window, as the metric the HPA reads does.
     */
    private int[] withoutTheWay(long now) {
        InMemoryCluster sampledNow = new InMemoryCluster();
        sampledNow.pods = cluster.pods;
        new SimulatedMetricsApis(workload, sampledAt(now, resourceMetrics), sampledAt(now, customMetrics), clock, metricSpecs).feed(sampledNow);
        int fresh = proposal(sampledNow, now);
        double resourceDemand = workload.offered.average(now - resourceMetrics.windowMillis(), now);
        double customDemand = workload.offered.average(now - customMetrics.windowMillis(), now);
        int ready = proposal(new SettledMetrics(workload, now, resourceDemand, customDemand, true, stepMillis), now);
        int uncapped = proposal(new SettledMetrics(workload, now, resourceDemand, customDemand, false, stepMillis), now);
        return new int[] {fresh, ready, uncapped};
    }

    /** The pipeline scraping at {@code now} data of {@code now}: its window without its delay and interval. */
    private static MetricsPipeline sampledAt(long now, MetricsPipeline p) {
        return new MetricsPipeline(p.intervalMillis(), p.windowMillis(), 0, now);
    }

    /** This spec's replica changes, from {@code replicas} at the start, with what delayed each. */
    List<ScaleDelays.Step> scaleSteps(int replicas) {
        return ScaleDelays.of(SimulationResult.replicaChanges(timeline, name(), replicas), delaySyncs, asked);
    }

    /** One sync of the HPA through the core, at the clock's time. */
    void sync(double demand) {
        long now = clock.now();
        int before = workload.specReplicas();
        cluster.feed(metrics);
        // from the state the core is about to see
        int[] without = withoutTheWay(now);
        int demanded = askedAt(now, demand);
        faults.startSync();
        ReconcileOutcome outcome = reconciler.reconcile(hpa);
        cluster.clearWrites(); // read from the workload, the HPA and the outcome
        pipelines.observe(HpaKey.of(hpa), outcome.trace(), clock.millis()); // a simulated sync takes no time
        delaySyncs.add(ScaleDelays.Sync.of(now, outcome.trace(), without[0], without[1], without[2], demanded));
        int after = workload.specReplicas();
        syncs++;
        if (outcome.error() != ReconcileOutcome.ErrorKind.NONE) {
            syncsWithError++;
        }
        if (outcome.rescaled()) {
            replicaChanges++;
            if (outcome.action() == ReconcileOutcome.Action.SCALE_UP && firstIncrease >= 0 && now >= firstIncrease && firstScaleUpAfter < 0) {
                firstScaleUpAfter = now - firstIncrease;
            }
        }
        invariants.check(new Invariants.Sync(now, hpa, before, after, outcome, faults.metricsCallsThisSync,
                faults.metricsFailuresThisSync, faults.scaleWritesThisSync, faults.scaleWritesSucceededThisSync));
        timeline.add(new TimelineRow(now, name(), demand, workload.readyCount(now), after, outcome.desiredReplicas(),
                metricValue(outcome), reason(outcome), workload.capacity(now), workload.podCount(), outcome.proposedReplicas(),
                outcome.action().label(), TraceFields.of(outcome.trace()), tolerances));
    }

    /** The first metric's current value from the status the core wrote: utilization in percent, else the value. */
    static String metricValue(ReconcileOutcome outcome) {
        if (outcome.status() == null || outcome.status().getCurrentMetrics() == null || outcome.status().getCurrentMetrics().isEmpty()
                || outcome.proposedReplicas() < 0) {
            return "";
        }
        MetricStatus m = outcome.status().getCurrentMetrics().get(0);
        MetricValueStatus v = MetricStatuses.current(m);
        if (v == null) {
            return "";
        }
        if (v.getAverageUtilization() != null) {
            return v.getAverageUtilization().toString();
        }
        var q = v.getAverageValue() != null ? v.getAverageValue() : v.getValue();
        return q == null ? "" : java.math.BigDecimal.valueOf(Quantities.approximate(q)).stripTrailingZeros().toPlainString();
    }

    /**
     * Why the sync did what it did, in the core's words: the rescale reason; or the reason of the condition the
     * error set False, with the error; or the AbleToScale reason (ReadyForNewScale, ScaleDownStabilized, ...).
     * An error that did not stop the sync (some metrics failed) is appended, and so is a True ScalingLimited.
     */
    static String reason(ReconcileOutcome outcome) {
        boolean error = outcome.error() != ReconcileOutcome.ErrorKind.NONE;
        HorizontalPodAutoscalerCondition failed = error ? falseCondition(outcome) : null;
        String text;
        if (outcome.rescaled()) {
            text = "SuccessfulRescale: " + outcome.rescaleReason();
        } else if (failed != null) {
            text = failed.getReason() + ": " + outcome.errorMessage();
        } else {
            HorizontalPodAutoscalerCondition able = condition(outcome, "AbleToScale");
            text = able == null ? "" : able.getReason();
        }
        if (error && failed == null) {
            text += "; " + outcome.errorMessage();
        }
        if (outcome.limitReason() != null) {
            text += " (ScalingLimited: " + outcome.limitReason() + ")";
        }
        return text;
    }

    private static HorizontalPodAutoscalerCondition falseCondition(ReconcileOutcome outcome) {
        if (outcome.status() == null || outcome.status().getConditions() == null) {
            return null;
        }
        for (HorizontalPodAutoscalerCondition c : outcome.status().getConditions()) {
            if ("False".equals(c.getStatus()) && !"ScalingLimited".equals(c.getType()) && !"ScaledToZero".equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    private static HorizontalPodAutoscalerCondition condition(ReconcileOutcome outcome, String type) {
        if (outcome.status() == null || outcome.status().getConditions() == null) {
            return null;
        }
        for (HorizontalPodAutoscalerCondition c : outcome.status().getConditions()) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }
}
