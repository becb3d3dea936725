package io.hpacontroller.sim.report;

import io.hpacontroller.core.Quantities;
import io.hpacontroller.sim.scenario.MetricsPipeline;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings an HPA spec may run with on its own ({@link Scenario.SpecSetup}), as the report shows them: for the
 * scenario, and for each spec beside its results where they are its own.
 */
final class SpecSettings {

    private SpecSettings() {
    }

    /** The settings of a setup, by name, in the report's order; {@code syncPeriodMillis} is the period it syncs at. */
    static Map<String, String> of(Scenario.SpecSetup setup, long syncPeriodMillis) {
        Map<String, String> rows = new LinkedHashMap<>();
        var c = setup.controller();
        rows.put("sync period / first sync", Figures.duration(syncPeriodMillis) + " / " + Figures.duration(c.syncPhaseMillis()));
        rows.put("tolerance", Csv.number(c.config().tolerance()));
        rows.put("downscale stabilization", Figures.duration(c.config().downscaleStabilization().toMillis()));
        rows.put("CPU initialization period / initial readiness delay", Figures.duration(c.config().cpuInitializationPeriod().toMillis())
                + " / " + Figures.duration(c.config().initialReadinessDelay().toMillis()));
        rows.put("metrics-server (Resource metrics)", pipeline(setup.resourceMetrics()));
        rows.put("custom/external metrics", pipeline(setup.customMetrics()));
        var w = setup.workload();
        rows.put("pods", "Running after " + Figures.duration(w.startedAfterMillis()) + ", Ready after " + Figures.duration(w.readyAfterMillis())
                + (w.startupCpu() == null ? "" : "; start-up CPU " + Quantities.formatDecimal(w.startupCpu().milli()) + " for "
                + Figures.duration(w.startupCpu().durationMillis())));
        return rows;
    }

    /** Spec {@code i}'s settings. */
    static Map<String, String> of(Scenario s, int i) {
        return of(s.setups().get(i), s.syncPeriodMillis(i));
    }

    /** The scenario's settings, which a spec runs with unless its entry (or its sync-period annotation) says otherwise. */
    static Map<String, String> ofScenario(Scenario s) {
        return of(s.setup(), s.controller().syncPeriodMillis());
    }

    /** Spec {@code i}'s settings that are not the scenario's, as "name value". */
    static List<String> own(Scenario s, int i) {
        Map<String, String> scenario = ofScenario(s);
        List<String> out = new ArrayList<>();
        of(s, i).forEach((name, value) -> {
            if (!value.equals(scenario.get(name))) {
                out.add(name + " " + value);
            }
        });
        return out;
    }

    private static String pipeline(MetricsPipeline p) {
        return "scrape every " + Figures.duration(p.intervalMillis()) + " (phase " + Figures.duration(p.phaseMillis()) + "), window "
                + Figures.duration(p.windowMillis()) + ", delay " + Figures.duration(p.delayMillis());
    }
}
