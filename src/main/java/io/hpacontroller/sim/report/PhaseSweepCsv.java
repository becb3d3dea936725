package io.hpacontroller.sim.report;

import io.hpacontroller.sim.PhaseSweep;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** {@code phase-sweep.csv} (issue 40): one row per run of {@link PhaseSweep}; times in seconds from the first rise of the demand. */
public final class PhaseSweepCsv {

    public static final String FILE = "phase-sweep.csv";
    /** The same runs with the controller started at the scenario's start (no warm-up). */
    public static final String COLD_START_FILE = "phase-sweep-cold-start.csv";
    public static final String HEADER = "spec,cadence,sync_phase_s,scrape_phase_s,first_step_s,to_max_s";

    private PhaseSweepCsv() {
    }

    public static void write(Path file, List<PhaseSweep.Run> runs) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(HEADER + "\n");
            for (PhaseSweep.Run r : runs) {
                w.write(String.join(",", Csv.cell(r.spec()), r.cadence().text().toLowerCase(Locale.ROOT), Csv.seconds(r.syncPhase()),
                        Csv.seconds(r.scrapePhase()), r.firstStep() < 0 ? "" : Csv.seconds(r.firstStep()), r.toMax() < 0 ? "" : Csv.seconds(r.toMax()))
                        + "\n");
            }
        }
    }

    /** The figures of each spec and cadence, one line each. */
    public static void summarize(String title, List<PhaseSweep.Run> runs, PrintWriter out) {
        out.println(title);
        for (PhaseSweep.Figures f : PhaseSweep.Figures.of(runs)) {
            out.printf(Locale.ROOT, "  %s %-6s first step: mean %.1f s, best %s s, worst %s s, across sync phases %s s; to max: mean %.1f s (%d runs)%n",
                    f.spec(), f.cadence().text().toLowerCase(Locale.ROOT), f.meanFirstStep() / 1000, Csv.seconds(f.bestFirstStep()),
                    Csv.seconds(f.worstFirstStep()), Csv.seconds(f.syncPhaseSpread()), f.meanToMax() / 1000, f.runs());
        }
    }
}
