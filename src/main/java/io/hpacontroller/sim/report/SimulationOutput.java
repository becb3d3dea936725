package io.hpacontroller.sim.report;

import io.hpacontroller.sim.SimulationResult;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes a simulation's files into a directory: timeline.csv, events.csv, report.html. */
public final class SimulationOutput {

    public static final String TIMELINE = "timeline.csv";
    public static final String EVENTS = "events.csv";
    public static final String REPORT = "report.html";

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

    /** Writes the files, creating the directory; returns their paths. */
    public static List<Path> write(SimulationResult result, Path dir) throws IOException {
        Files.createDirectories(dir);
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
        return List.of(timeline, events, report, SummaryCsv.writeTo(result, dir));
    }
}
