package io.hpacontroller.cli;

import io.hpacontroller.sim.PhaseSweep;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.report.PhaseSweepCsv;
import io.hpacontroller.sim.report.SimulationOutput;
import io.hpacontroller.sim.report.SummaryText;
import io.hpacontroller.sim.scenario.Scenario;
import io.hpacontroller.sim.scenario.ScenarioException;
import io.hpacontroller.sim.scenario.ScenarioReader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code simulate SCENARIO.yaml [--out DIR]}: replays a load trace through the decision core. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Replays a load trace through the same decision code as the controller, with a simulated "
                + "workload, metrics pipeline and clock, for every HPA spec in the scenario. No cluster is needed. "
                + "Writes timeline.csv, demand.csv, events.csv, summary.csv and report.html into DIR and prints the summary.",
                ""},
        footer = {"",
                "The scenario file (YAML; unknown keys are errors):",
                "  duration: 30m      how long to simulate (required; at most 31d)",
                "  step: 1s           resolution of the workload model",
                "  controller:        kube-controller-manager's HPA flags and syncPhase",
                "                     (horizontal-pod-autoscaler-sync-period: 15s, ...)",
                "  workload:          the scale target (required): replicas, labels,",
                "                     containers: [{name, requests}], capacity, readyAfter, ...",
                "  metrics:           resource (metrics-server), custom (the custom/external",
                "                     metrics adapter): scrapeInterval, window, delay, phase",
                "  load:              the demand (required): points: [[0s, 500], [5m, 1500]]",
                "                     or csv: FILE; interpolation, unit, noise",
                "  hpas:              ordinary autoscaling/v2 HorizontalPodAutoscalers (required);",
                "                     an entry {hpa: HPA, controller, metrics, workload} runs that",
                "                     spec with its own flags, pipelines and startedAfter/readyAfter",
                "  faults:            seed, metricsFailure, scaleWriteFailure, scaleWriteConflict",
                "Durations: 500ms, 15s, 5m, 1h30m, 2d, 1w or seconds; quantities: 100m, 256Mi.",
                "Start from a commented example:",
                "  hpa-controller simulate --example > my-scenario.yaml",
                "",
                "Exit status: 0; 1 when an invariant was violated (see faults); 2 for a scenario",
                "that cannot be used or an --out directory that cannot be written (the message",
                "says why)."})
public final class SimulateCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "SCENARIO", description = "the scenario file (YAML)")
    Path scenarioFile;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "simulation", description = "output directory (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--example", description = "print a commented scenario to start from, and exit")
    boolean example;

    @Option(names = "--sweep-phases", description = "run each HPA spec at every sync phase and every metrics-pipeline phase (1 s steps),"
            + " once with each cadence (spread, fresh), the controller started " + PhaseSweep.WARM_UP_PERIODS + " periods early; write DIR/"
            + PhaseSweepCsv.FILE + " (and DIR/" + PhaseSweepCsv.COLD_START_FILE + " without the early start) instead of the report")
    boolean sweepPhases;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        if (example) {
            stdout.print(ScenarioReader.example());
            stdout.flush();
            return 0;
        }
        if (scenarioFile == null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "Missing required parameter: 'SCENARIO' (hpa-controller simulate --example prints one to start from)");
        }
        Scenario scenario;
        try {
            scenario = new ScenarioReader().read(scenarioFile);
        } catch (ScenarioException e) {
            stderr.println("simulate: " + e.getMessage());
            stderr.flush();
            return 2;
        }
        try {
            SimulationOutput.prepare(out);
        } catch (IOException e) {
            stderr.println("simulate: cannot write to " + out + ": " + reason(e));
            stderr.flush();
            return 2;
        }
        if (sweepPhases) {
            try {
                java.util.List<PhaseSweep.Run> warm = PhaseSweep.run(scenario, PhaseSweep.WARM_UP_PERIODS);
                java.util.List<PhaseSweep.Run> cold = PhaseSweep.run(scenario, 0);
                PhaseSweepCsv.write(out.resolve(PhaseSweepCsv.FILE), warm);
                PhaseSweepCsv.write(out.resolve(PhaseSweepCsv.COLD_START_FILE), cold);
                PhaseSweepCsv.summarize("Phase sweep, the controller started " + PhaseSweep.WARM_UP_PERIODS + " periods early:", warm, stdout);
                PhaseSweepCsv.summarize("Cold start (the first sync at the phase):", cold, stdout);
            } catch (IOException e) {
                stderr.println("simulate: cannot write to " + out + ": " + reason(e));
                stderr.flush();
                return 2;
            }
            stdout.println("Wrote " + out.resolve(PhaseSweepCsv.FILE) + ", " + out.resolve(PhaseSweepCsv.COLD_START_FILE));
            stdout.flush();
            return 0;
        }
        SimulationOutput.Written written;
        try {
            written = SimulationOutput.run(scenario, out);
        } catch (IOException e) {
            stderr.println("simulate: cannot write to " + out + ": " + reason(e));
            stderr.flush();
            return 2;
        }
        SimulationResult result = written.result();
        List<Path> files = written.files();
        SummaryText.print(result, stdout);
        stdout.println("Wrote " + String.join(", ", files.stream().map(Path::toString).toList()));
        stdout.flush();
        return result.invariantViolations() == 0 ? 0 : 1;
    }

    /** Why a file or directory could not be written, in words ("/tmp/a exists and is not a directory"). */
    static String reason(IOException e) {
        if (e instanceof FileAlreadyExistsException f) {
            return f.getFile() + " exists and is not a directory";
        }
        if (e instanceof NoSuchFileException f) {
            return "no such file or directory: " + f.getFile();
        }
        if (e instanceof AccessDeniedException f) {
            return "permission denied: " + f.getFile();
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getFile() + ": " + f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
