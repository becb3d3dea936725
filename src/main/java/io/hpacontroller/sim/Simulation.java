package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.sim.scenario.LoadTrace;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Runs a scenario: every HPA spec in its own simulated cluster (with its own controller flags, metrics pipelines
 * and workload start-up when the spec sets them), all fed the same demand, on one virtual clock. Time advances
 * in steps of the scenario's {@code step}, and also stops exactly at every sync of every spec.
 * Before time 0 the workload runs (without syncs) long enough to fill the metrics pipelines, so the first
 * sync sees a cluster in a steady state.
 */
public final class Simulation {

    /** Buckets of the chart's series: about this many over the run. */
    static final int CHART_POINTS = 1500;

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private Simulation() {
    }

    public static SimulationResult run(Scenario scenario) {
        return run(scenario, StepListener.NONE);
    }

    /** Runs the scenario, telling {@code listener} the state at every step. */
    public static SimulationResult run(Scenario scenario, StepListener listener) {
        return run(scenario, listener, 0);
    }

    /**
     * Runs the scenario with the controller started {@code warmUpMillis} before its start (0: the first sync at the
     * phase): the syncs before time 0 see the demand of time 0, and let the fresh cadence learn the pipelines.
     */
    public static SimulationResult run(Scenario scenario, StepListener listener, long warmUpMillis) {
        long wallStart = System.nanoTime();
        long step = scenario.stepMillis();
        long end = scenario.durationMillis();
        long horizon = step;
        for (Scenario.SpecSetup setup : scenario.setups()) {
            horizon = Math.max(horizon, Math.max(setup.resourceMetrics().horizonMillis(), setup.customMetrics().horizonMillis()) + step);
        }
        long warmStart = -((horizon + warmUpMillis + step - 1) / step) * step;
        VirtualClock clock = new VirtualClock(warmStart);

        LoadTrace load = scenario.load();
        long firstIncrease = load.firstIncrease().orElse(-1);
        if (firstIncrease > end) {
            firstIncrease = -1;
        }
        List<HpaRun> runs = new ArrayList<>();
        for (int i = 0; i < scenario.hpas().size(); i++) {
            // each run gets its own copy: the core writes the status on it
            HorizontalPodAutoscaler copy = SERIALIZATION.clone(scenario.hpas().get(i));
            HpaRun run = new HpaRun(scenario, i, copy, clock, horizon, firstIncrease);
            if (warmUpMillis > 0) {
                run.firstSyncAtOrAfter(-warmUpMillis);
            }
            runs.add(run);
        }
        long bucket = Math.max(step, (end + CHART_POINTS - 1) / CHART_POINTS);
        Series demandSeries = new Series(end, bucket, Series.Keep.MAX);
        List<Series> capacitySeries = new ArrayList<>();
        List<Series> replicaSeries = new ArrayList<>();
        for (HpaRun r : runs) {
            capacitySeries.add(new Series(end, bucket, Series.Keep.MIN));
            replicaSeries.add(new Series(end, bucket, Series.Keep.MAX));
        }

        Random noise = load.noise() == null ? null : load.noise().source();
        double demand = noise == null ? load.demandAt(warmStart) : load.noise().apply(load.demandAt(warmStart), noise);
        long t = warmStart;
        long steps = 0;
        while (true) {
            long nextSync = Long.MAX_VALUE;
            for (HpaRun r : runs) {
                r.neighbours(t);
                if (t == r.nextSync && t <= end) {
                    r.sync(demand);
                    r.nextSync = r.nextSyncAfter(t);
                }
                nextSync = Math.min(nextSync, r.nextSync);
            }
            long next = Math.min(Math.min(Math.floorDiv(t, step) * step + step, nextSync), end);
            long dt = Math.max(0, next - t);
            if (t >= 0) {
                steps++;
                demandSeries.add(t, demand);
                List<StepListener.Workload> states = listener == StepListener.NONE ? null : new ArrayList<>(runs.size());
                for (int i = 0; i < runs.size(); i++) {
                    HpaRun r = runs.get(i);
                    // the Ready pods counted once per step: the summary, the chart and demand.csv all read this count
                    int ready = r.workload.readyCount(t);
                    double capacity = r.workload.capacityOf(ready);
                    r.observe(t, dt, demand, capacity);
                    capacitySeries.get(i).add(t, capacity);
                    replicaSeries.get(i).add(t, r.workload.podCount());
                    if (states != null) {
                        states.add(new StepListener.Workload(capacity, ready, r.workload.podCount()));
                    }
                }
                if (states != null) {
                    listener.step(t, demand, states);
                }
            }
            if (t >= end) {
                break;
            }
            for (HpaRun r : runs) {
                r.workload.advance(t, next, demand);
            }
            t = next;
            clock.advanceTo(t);
            if (noise == null) {
                demand = load.demandAt(t);
            } else if (t % step == 0) {
                demand = load.noise().apply(load.demandAt(t), noise);
            }
        }

        List<TimelineRow> timeline = new ArrayList<>();
        List<HpaSummary> summaries = new ArrayList<>();
        List<RecordedEvent> events = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        List<List<ScaleDelays.Step>> scaleSteps = new ArrayList<>();
        boolean capacity = scenario.workload().capacity() != null;
        for (HpaRun r : runs) {
            timeline.addAll(r.timeline);
            summaries.add(r.summary());
            events.addAll(r.cluster.recordedEvents());
            violations.addAll(r.invariants.violations());
            scaleSteps.add(r.scaleSteps(scenario.workload().replicas()));
        }
        timeline.sort(Comparator.comparingLong(TimelineRow::timeMillis)); // stable: HPAs stay in scenario order
        events.sort(Comparator.comparingLong(RecordedEvent::timeMillis));
        return new SimulationResult(scenario, timeline, summaries, demandSeries, capacity ? capacitySeries : List.of(), replicaSeries,
                events, violations, firstIncrease, steps, (System.nanoTime() - wallStart) / 1_000_000, scaleSteps);
    }
}
