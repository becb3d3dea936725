package io.hpacontroller.sim;

import io.hpacontroller.sim.scenario.Scenario;
import io.hpacontroller.sim.scenario.ScenarioException;
import io.hpacontroller.sim.scenario.ScenarioReader;

import java.nio.file.Path;

/** Runs the shipped examples. */
final class Examples {

    private Examples() {
    }

    static Scenario read(String name) throws ScenarioException {
        return new ScenarioReader().read(Path.of("examples", name + ".yaml"));
    }

    static SimulationResult run(String name) throws ScenarioException {
        return Simulation.run(read(name));
    }

    static long s(long millis) {
        return millis / 1000;
    }
}
