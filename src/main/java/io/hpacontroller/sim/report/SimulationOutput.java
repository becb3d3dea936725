package io.hpacontroller.sim.report;

import io.hpacontroller.sim.Simulation;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.scenario.Scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Runs a simulation into a directory: demand.csv while it runs, then timeline.csv, events.csv and report.html. */
public final class SimulationOutput {

    public static final String TIMELINE = "timeline.csv";
    public static final String DEMAND = "demand.csv";
    public static final String EVENTS = "events.csv";
    public static final String REPORT = "report.html";

    /**
     * What a run produced.
     *
     * @param result the simulation's result
     * @param files  the files written
     */
    public record Written(SimulationResult result, List<Path> files) {
    }

    private SimulationOutput() {
    }

    /**
     * Creates the directory and checks that a file can be written in it, before a long simulation is
     * run for nothing.
     */
    public static void prepare(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.delete(Files.createTempFile(dir, ".probe", ".tmp"));
    }

    /** Runs the scenario and writes its files, creating the directory. */
    public static Written run(Scenario scenario, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path demand = dir.resolve(DEMAND);
        SimulationResult result;
        try (Writer w = Files.newBufferedWriter(demand, StandardCharsets.UTF_8)) {
            result = Simulation.run(scenario, new DemandCsv(w, scenario.hpas().stream().map(h -> h.getMetadata().getName()).toList()));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Path timeline = dir.resolve(TIMELINE);
        try (Writer w = Files.newBufferedWriter(timeline, StandardCharsets.UTF_8)) {
            TimelineCsv.writeTimeline(result.timeline(), w);
        }
        Path events = dir.resolve(EVENTS);
        try (Writer w = Files.newBufferedWriter(events, StandardCharsets.UTF_8)) {
            TimelineCsv.writeEvents(result.events(), w);
        }
        Path report = dir.resolve(REPORT);
        Files.writeString(report, ReportPage.render(result), StandardCharsets.UTF_8);
        return new Written(result, List.of(timeline, demand, events, report, SummaryCsv.writeTo(result, dir)));
    }
}
