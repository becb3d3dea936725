package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.MetricStatuses;
import io.hpacontroller.core.reconcile.MetricsSource;
import io.hpacontroller.core.reconcile.ReconcileOutcome;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.reconcile.ScaleClient;
import io.hpacontroller.core.reconcile.SelectorOwnership;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

    HpaRun(Scenario scenario, int index, HorizontalPodAutoscaler hpa, VirtualClock clock, long horizonMillis, long firstIncrease) {
        this.hpa = hpa;
        Scenario.SpecSetup setup = scenario.setups().get(index);
        this.firstIncrease = firstIncrease;
        this.clock = clock;
        String target = hpa.getSpec().getScaleTargetRef() != null && hpa.getSpec().getScaleTargetRef().getName() != null
                ? hpa.getSpec().getScaleTargetRef().getName() : "workload";
        this.workload = new SimulatedWorkload(target, setup.workload(), clock.now(), horizonMillis);
        this.cluster = new SimulatedCluster(workload, clock);
        this.faults = new FaultInjection(scenario.faults(), scenario.faults().seed() * 31 + index, cluster);
        MetricsSource metrics = new SimulatedMetricsApis(workload, setup.resourceMetrics(), setup.customMetrics(), clock);
        ScaleClient scale = cluster;
        if (scenario.faults().any()) {
            metrics = faults.metrics(metrics);
            scale = faults.scale(scale);
        }
        ControllerConfig config = setup.controller().config();
        this.tolerances = tolerances(hpa, config);
        Duration flag = Duration.ofMillis(setup.controller().syncPeriodMillis());
        this.syncPeriodMillis = HpaControls.of(hpa) instanceof Parsed.Valid<HpaControls> v ? v.value().syncPeriodOr(flag).toMillis() : flag.toMillis();
        this.nextSync = setup.controller().syncPhaseMillis();
        this.reconciler = new Reconciler(config, scale, cluster, metrics, cluster, cluster,
                new HistoryStore(), SelectorOwnership.NONE, clock);
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

    /** One sync of the HPA through the core, at the clock's time. */
    void sync(double demand) {
        long now = clock.now();
        int before = workload.specReplicas();
        faults.startSync();
        ReconcileOutcome outcome = reconciler.reconcile(hpa);
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
