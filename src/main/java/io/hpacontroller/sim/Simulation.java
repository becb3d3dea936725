package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Runs a scenario: every HPA spec in its own simulated cluster, all fed the same demand, on one virtual
 * clock. Time advances in steps of the scenario's {@code step}, and also stops exactly at every sync.
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
        long wallStart = System.nanoTime();
        long step = scenario.stepMillis();
        long end = scenario.durationMillis();
        long horizon = Math.max(scenario.resourceMetrics().horizonMillis(), scenario.customMetrics().horizonMillis()) + step;
        long warmStart = -((horizon + step - 1) / step) * step;
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
            runs.add(new HpaRun(scenario, i, copy, clock, horizon, firstIncrease));
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
        // each HPA at its own period (the flag's, or its sync-period control), all from the same phase
        long[] nextSync = new long[runs.size()];
        Arrays.fill(nextSync, scenario.controller().syncPhaseMillis());
        long t = warmStart;
        long steps = 0;
        while (true) {
            long firstDue = Long.MAX_VALUE;
            for (int i = 0; i < runs.size(); i++) {
                HpaRun r = runs.get(i);
                if (t == nextSync[i] && t <= end) {
                    r.sync(demand);
                    nextSync[i] += r.syncPeriodMillis;
                }
                firstDue = Math.min(firstDue, nextSync[i]);
            }
            long next = Math.min(Math.min(Math.floorDiv(t, step) * step + step, firstDue), end);
            long dt = Math.max(0, next - t);
            if (t >= 0) {
                steps++;
                demandSeries.add(t, demand);
                for (int i = 0; i < runs.size(); i++) {
                    HpaRun r = runs.get(i);
                    r.observe(t, dt, demand);
                    capacitySeries.get(i).add(t, r.workload.capacity(t));
                    replicaSeries.get(i).add(t, r.workload.podCount());
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
        boolean capacity = scenario.workload().capacity() != null;
        for (HpaRun r : runs) {
            timeline.addAll(r.timeline);
            summaries.add(r.summary());
            events.addAll(r.cluster.events());
            violations.addAll(r.invariants.violations());
        }
        timeline.sort(Comparator.comparingLong(TimelineRow::timeMillis)); // stable: HPAs stay in scenario order
        events.sort(Comparator.comparingLong(RecordedEvent::timeMillis));
        return new SimulationResult(scenario, timeline, summaries, demandSeries, capacity ? capacitySeries : List.of(), replicaSeries,
                events, violations, firstIncrease, steps, (System.nanoTime() - wallStart) / 1_000_000);
    }
}
