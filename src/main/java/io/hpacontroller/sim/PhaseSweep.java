package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.sim.scenario.MetricsPipeline;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code simulate FILE --sweep-phases} (issue 40): each HPA spec of the scenario run alone at every sync phase (1 s steps
 * over its sync period) and every metrics-pipeline phase (1 s steps over the resource pipeline's interval; the custom
 * pipeline at the same phase), once with each cadence. Spread is the fixed phase upstream syncs at; fresh starts at that
 * phase and moves just after each new sample once it has learned the pipeline. Each run starts the controller
 * {@code warmUpPeriods} sync periods before the scenario's start (the same for both cadences; 0: a cold start at the phase).
 */
public final class PhaseSweep {

    /** The periods the controller runs before the scenario's start in the sweep: enough for a lone HPA to learn. */
    public static final int WARM_UP_PERIODS = 8;

    /**
     * One run of the sweep; times in ms from the first rise of the demand, -1 when it never happened.
     *
     * @param spec        the HPA's name
     * @param cadence     spread or fresh
     * @param syncPhase   the controller's sync phase (ms)
     * @param scrapePhase the metrics pipelines' phase (ms)
     * @param firstStep   the first scale-up
     * @param toMax       the first time the replicas reached maxReplicas
     */
    public record Run(String spec, SyncCadence cadence, long syncPhase, long scrapePhase, long firstStep, long toMax) {
    }

    private PhaseSweep() {
    }

    public static List<Run> run(Scenario scenario, int warmUpPeriods) {
        List<Run> out = new ArrayList<>();
        for (int i = 0; i < scenario.hpas().size(); i++) {
            HorizontalPodAutoscaler hpa = scenario.hpas().get(i);
            Scenario.SpecSetup setup = scenario.setups().get(i);
            long period = scenario.syncPeriodMillis(i);
            long interval = setup.resourceMetrics().intervalMillis();
            for (SyncCadence cadence : List.of(SyncCadence.SPREAD, SyncCadence.FRESH)) {
                for (long scrape = 0; scrape < interval; scrape += 1000) {
                    for (long sync = 0; sync < period; sync += 1000) {
                        Scenario.SpecSetup s = new Scenario.SpecSetup(setup.controller().withCadence(cadence).withSyncPhase(sync),
                                setup.workload(), atPhase(setup.resourceMetrics(), scrape), atPhase(setup.customMetrics(), scrape), setup.overrides());
                        Scenario one = new Scenario(scenario.name(), scenario.description(), scenario.durationMillis(), scenario.stepMillis(),
                                scenario.controller(), scenario.workload(), scenario.resourceMetrics(), scenario.customMetrics(), scenario.load(),
                                List.of(hpa), scenario.faults(), List.of(s));
                        SimulationResult r = Simulation.run(one, StepListener.NONE, warmUpPeriods * period);
                        out.add(new Run(hpa.getMetadata().getName(), cadence, sync, scrape, r.summaries().get(0).firstScaleUpMillis(),
                                toMax(r, hpa)));
                    }
                }
            }
        }
        return out;
    }

    private static MetricsPipeline atPhase(MetricsPipeline p, long phase) {
        return new MetricsPipeline(p.intervalMillis(), p.windowMillis(), p.delayMillis(), phase);
    }

    /** From the first rise of the demand until the replicas first reached maxReplicas, -1 when they did not. */
    private static long toMax(SimulationResult r, HorizontalPodAutoscaler hpa) {
        long rise = r.firstLoadIncreaseMillis();
        Integer max = hpa.getSpec().getMaxReplicas();
        if (rise < 0 || max == null) {
            return -1;
        }
        for (TimelineRow row : r.timeline()) {
            if (row.timeMillis() >= rise && row.replicas() >= max) {
                return row.timeMillis() - rise;
            }
        }
        return -1;
    }

    /**
     * The figures of one spec and cadence: over all phases, the mean, best and worst first step (ms), and the most the first step
     * moves with the sync phase alone (the worst minus the best over the sync phases, at the scrape phase where that is largest).
     */
    public record Figures(String spec, SyncCadence cadence, int runs, double meanFirstStep, long bestFirstStep, long worstFirstStep,
                          long syncPhaseSpread, double meanToMax) {

        public static List<Figures> of(List<Run> runs) {
            List<Figures> out = new ArrayList<>();
            List<String> specs = runs.stream().map(Run::spec).distinct().toList();
            for (String spec : specs) {
                for (SyncCadence c : List.of(SyncCadence.SPREAD, SyncCadence.FRESH)) {
                    List<Run> these = runs.stream().filter(x -> x.spec().equals(spec) && x.cadence() == c && x.firstStep() >= 0).toList();
                    if (these.isEmpty()) {
                        continue;
                    }
                    long spread = 0;
                    for (long scrape : these.stream().map(Run::scrapePhase).distinct().toList()) {
                        List<Long> steps = these.stream().filter(x -> x.scrapePhase() == scrape).map(Run::firstStep).toList();
                        spread = Math.max(spread, steps.stream().mapToLong(Long::longValue).max().orElse(0)
                                - steps.stream().mapToLong(Long::longValue).min().orElse(0));
                    }
                    out.add(new Figures(spec, c, these.size(), these.stream().mapToLong(Run::firstStep).average().orElse(Double.NaN),
                            these.stream().mapToLong(Run::firstStep).min().orElse(-1), these.stream().mapToLong(Run::firstStep).max().orElse(-1),
                            spread, these.stream().filter(x -> x.toMax() >= 0).mapToLong(Run::toMax).average().orElse(Double.NaN)));
                }
            }
            return out;
        }
    }
}
