package io.hpacontroller.sim.report;

import io.hpacontroller.sim.HpaSummary;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.scenario.Scenario;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * summary.csv: one row per HPA spec with the run's figures, for comparing specs side by side in a spreadsheet or
 * a script. Times are in seconds without a unit; a figure that does not apply (no capacity to compare with) or an
 * event that never happened (no scale-up after the load rose) is an empty cell.
 */
public final class SummaryCsv {

    /** The header; the first six columns are a contract (issue 18), more may be appended later. */
    public static final String HEADER = "hpa,overload_seconds,replica_seconds,replica_changes,peak_replicas,first_scale_up_seconds,"
            + "covered_after_seconds,final_replicas,syncs,syncs_with_error,overrides";

    public static final String FILE = "summary.csv";

    private SummaryCsv() {
    }

    /** Writes {@value #FILE} into {@code dir}; returns its path. */
    public static Path writeTo(SimulationResult result, Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(result, w);
        }
        return file;
    }

    public static void write(SimulationResult result, Writer out) throws IOException {
        out.write(HEADER);
        out.write('\n');
        List<HpaSummary> summaries = result.summaries();
        for (int i = 0; i < summaries.size(); i++) {
            HpaSummary h = summaries.get(i);
            Scenario.SpecSetup setup = result.scenario().setups().get(i);
            out.write(Csv.cell(h.hpa()) + ','
                    + (h.capacityKnown() ? Csv.seconds(h.overloadMillis()) : "") + ','
                    + Csv.number(h.replicaSeconds()) + ','
                    + h.replicaChanges() + ','
                    + h.peakReplicas() + ','
                    + (h.firstScaleUpMillis() < 0 ? "" : Csv.seconds(h.firstScaleUpMillis())) + ','
                    + (h.coveredMillis() < 0 ? "" : Csv.seconds(h.coveredMillis())) + ','
                    + h.finalReplicas() + ','
                    + h.syncs() + ','
                    + h.syncsWithError() + ','
                    + Csv.cell(String.join("; ", setup.overrides()))
                    + '\n');
        }
    }
}
