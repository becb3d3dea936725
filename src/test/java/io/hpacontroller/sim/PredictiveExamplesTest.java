package io.hpacontroller.sim;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The targets of issue 18 on the shipped examples, each simulated through the same core as the controller (the
 * learned load is part of each simulated controller). Prints the figures and the wall time (the README quotes them).
 */
class PredictiveExamplesTest {

    private static Map<String, HpaSummary> run(String example) throws ScenarioException {
        SimulationResult r = Examples.run(example);
        System.out.printf("%s: %dd simulated in %d ms of wall time%n", example, r.scenario().durationMillis() / 86_400_000,
                r.wallMillis());
        for (HpaSummary h : r.summaries()) {
            System.out.printf("  %-10s overload %5d s, replica-seconds %9d, replica changes %4d, peak %3d%n", h.hpa(), h.overloadMillis() / 1000,
                    Math.round(h.replicaSeconds()), h.replicaChanges(), h.peakReplicas());
        }
        assertThat(r.violations()).isEmpty();
        return r.summaries().stream().collect(Collectors.toMap(HpaSummary::hpa, Function.identity()));
    }

    @Test
    void aDiurnalWeekPredictiveCutsOverloadByHalfForAtMostATenthMoreReplicaSeconds() throws ScenarioException {
        Map<String, HpaSummary> s = run("diurnal-week-predictive");
        HpaSummary reactive = s.get("reactive");
        HpaSummary scheduled = s.get("scheduled");
        HpaSummary predictive = s.get("predictive");
        // the reactive HPA is overloaded at every weekday burst: there is something to cut
        assertThat(reactive.overloadMillis()).isGreaterThan(5 * 60_000L);
        assertThat(predictive.overloadMillis()).isLessThanOrEqualTo(reactive.overloadMillis() / 2);
        assertThat(predictive.replicaSeconds()).isLessThanOrEqualTo(reactive.replicaSeconds() * 1.10);
        // the rule covers every burst, at the cost of its hour of 40 replicas
        assertThat(scheduled.overloadMillis()).isLessThan(reactive.overloadMillis() / 2);
        assertThat(scheduled.replicaSeconds()).isGreaterThan(reactive.replicaSeconds());
    }

    @Test
    void aRandomWalkHasNothingToLearnPredictiveCostsAtMostFivePercentMoreAndNeverMoreOverload() throws ScenarioException {
        Map<String, HpaSummary> s = run("random-walk-predictive");
        HpaSummary reactive = s.get("reactive");
        HpaSummary predictive = s.get("predictive");
        assertThat(predictive.replicaSeconds()).isLessThanOrEqualTo(reactive.replicaSeconds() * 1.05);
        assertThat(predictive.overloadMillis()).isLessThanOrEqualTo(reactive.overloadMillis());
    }

    @Test
    void aRegimeChangeMakesWhatWasLearnedWrongPredictiveIsNeverWorseThanReactive() throws ScenarioException {
        Map<String, HpaSummary> s = run("regime-change-predictive");
        HpaSummary reactive = s.get("reactive");
        HpaSummary predictive = s.get("predictive");
        assertThat(reactive.overloadMillis()).as("the doubling overloads the reactive HPA").isPositive();
        assertThat(predictive.overloadMillis()).isLessThanOrEqualTo(reactive.overloadMillis());
        assertThat(predictive.peakReplicas()).isLessThanOrEqualTo(80);
    }
}
