package io.hpacontroller.cli;

import io.hpacontroller.sim.Scenario;
import io.hpacontroller.sim.ScenarioException;
import io.hpacontroller.sim.ScenarioReader;
import io.hpacontroller.sim.Simulation;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.report.SimulationOutput;
import io.hpacontroller.sim.report.SummaryText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code simulate SCENARIO.yaml [--out DIR]}: replays a load trace through the decision core. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Replays a load trace through the same decision code as the controller, with a simulated workload,",
                "metrics pipeline and clock, for every HPA spec in the scenario (README: \"Simulator\").",
                "Writes timeline.csv, events.csv and report.html into DIR and prints the summary.",
                "Exits 2 on a bad scenario file, 1 when an invariant was violated (see faults: in the scenario), else 0."})
public final class SimulateCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "the scenario file (YAML)")
    Path scenarioFile;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "simulation", description = "output directory (default: ${DEFAULT-VALUE})")
    Path out;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        Scenario scenario;
        try {
            scenario = new ScenarioReader().read(scenarioFile);
        } catch (ScenarioException e) {
            stderr.println("simulate: " + e.getMessage());
            stderr.flush();
            return 2;
        }
        SimulationResult result = Simulation.run(scenario);
        List<Path> files;
        try {
            files = SimulationOutput.write(result, out);
        } catch (IOException e) {
            stderr.println("simulate: cannot write to " + out + ": " + e.getMessage());
            stderr.flush();
            return 2;
        }
        SummaryText.print(result, stdout);
        stdout.println("Wrote " + String.join(", ", files.stream().map(Path::toString).toList()));
        stdout.flush();
        return result.invariantViolations() == 0 ? 0 : 1;
    }
}
