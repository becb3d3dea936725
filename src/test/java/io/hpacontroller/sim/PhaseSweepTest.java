package io.hpacontroller.sim;

import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.sim.scenario.ScenarioReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40's goal on seed 004, from the deterministic sweep over every sync and scrape phase (225 pairs, each cadence),
 * the controller started {@value PhaseSweep#WARM_UP_PERIODS} periods before the scenario.
 */
class PhaseSweepTest {

    private static List<PhaseSweep.Run> runs;
    private static PhaseSweep.Figures spread;
    private static PhaseSweep.Figures fresh;

    @BeforeAll
    static void sweep() throws Exception {
        runs = PhaseSweep.run(new ScenarioReader().read(Path.of("examples/seed-004-burst.yaml")), PhaseSweep.WARM_UP_PERIODS);
        List<PhaseSweep.Figures> figures = PhaseSweep.Figures.of(runs);
        spread = figures.stream().filter(f -> f.cadence() == SyncCadence.SPREAD).findFirst().orElseThrow();
        fresh = figures.stream().filter(f -> f.cadence() == SyncCadence.FRESH).findFirst().orElseThrow();
    }

    @Test
    void everyPhasePairRanWithEachCadenceAndScaledUp() {
        assertThat(runs).hasSize(2 * 15 * 15);
        assertThat(spread.runs()).isEqualTo(225);
        assertThat(fresh.runs()).isEqualTo(225);
    }

    @Test
    void freshIsAtLeast5sSoonerOnAverageAnd10sInTheWorstCase() {
        assertThat(spread.meanFirstStep() - fresh.meanFirstStep()).isGreaterThanOrEqualTo(5_000);
        assertThat(spread.worstFirstStep() - fresh.worstFirstStep()).isGreaterThanOrEqualTo(10_000);
    }

    @Test
    void freshTakesTheSyncPhaseOutOfTheLottery() {
        assertThat(fresh.syncPhaseSpread()).isLessThanOrEqualTo(5_000);
        assertThat(spread.syncPhaseSpread()).as("what spread leaves to the phase").isGreaterThan(10_000);
    }
}
