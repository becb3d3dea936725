package io.hpacontroller.sim;

import io.hpacontroller.sim.scenario.Scenario;
import io.hpacontroller.sim.scenario.ScenarioException;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak run: one simulated week of noisy load with random faults (examples/soak-week.yaml), invariants
 * checked at every step and after every sync. Prints its figures (the README quotes them).
 */
class SoakTest {

    private static long sum(SimulationResult r, java.util.function.ToLongFunction<HpaSummary> f) {
        return r.summaries().stream().mapToLong(f).sum();
    }

    @Test
    void aWeekOfNoisyLoadWithFaultsViolatesNoInvariant() throws ScenarioException {
        Scenario scenario = Examples.read("soak-week");
        assertThat(scenario.durationMillis()).isEqualTo(7 * 86_400_000L);
        assertThat(scenario.faults().any()).isTrue();

        SimulationResult r = Simulation.run(scenario);

        Map<String, Long> eventReasons = new TreeMap<>();
        r.events().forEach(e -> eventReasons.merge(e.reason(), 1L, Long::sum));
        System.out.printf("soak: 7d simulated, %d steps, %d syncs, %d faults injected (%d metrics calls, %d scale writes failed, %d conflicts),"
                        + " %d invariant checks, %d violations, %d ms wall time%n",
                r.steps(), r.syncs(), r.faultsInjected(), sum(r, HpaSummary::metricsFailures), sum(r, HpaSummary::scaleWriteFailures),
                sum(r, HpaSummary::scaleWriteConflicts), r.invariantChecks(), r.invariantViolations(), r.wallMillis());
        System.out.println("soak: events " + eventReasons);

        assertThat(r.violations()).isEmpty();
        assertThat(r.invariantViolations()).isZero();
        assertThat(r.steps()).isEqualTo(7 * 86_400 / 5 + 1);
        assertThat(r.syncs()).isEqualTo(2 * (7 * 86_400 / 15 + 1));
        assertThat(r.invariantChecks()).isGreaterThan(r.syncs() * 5);
        // the faults really happened and reached the core: each kind shows in its events
        assertThat(r.faultsInjected()).isGreaterThan(4000);
        assertThat(sum(r, HpaSummary::scaleWriteFailures)).isPositive();
        assertThat(sum(r, HpaSummary::scaleWriteConflicts)).isPositive();
        assertThat(eventReasons).containsKeys("FailedGetResourceMetric", "FailedGetExternalMetric", "FailedRescale", "SuccessfulRescale");
        // a week of syncs draws as a page that opens: the decision charts are thinned to the pixel columns
        assertThat(io.hpacontroller.sim.report.ReportPage.render(r).length()).isLessThan(1_000_000);
        // and the HPAs still followed the daily cycle
        for (HpaSummary s : r.summaries()) {
            assertThat(s.peakReplicas()).as(s.hpa()).isGreaterThan(15);
            assertThat(s.replicaChanges()).as(s.hpa()).isGreaterThan(7 * 4);
            assertThat(s.syncsWithError()).as(s.hpa()).isPositive();
        }
    }
}
