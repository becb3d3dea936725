package io.hpacontroller.sim.report;

import io.hpacontroller.sim.HpaSummary;
import io.hpacontroller.sim.SimulationResult;

import java.io.PrintWriter;
import java.util.List;

/** The summary the simulate command prints. */
public final class SummaryText {

    /** Replica changes listed per HPA before "... and N more". */
    static final int CHANGES_LISTED = 12;

    private SummaryText() {
    }

    public static void print(SimulationResult result, PrintWriter out) {
        var s = result.scenario();
        out.printf("Scenario %s: %s simulated in %s s of wall time, %d HPA spec(s), %d steps, %d syncs%n", s.name(),
                Figures.duration(s.durationMillis()), Csv.number(result.wallMillis() / 1000.0), s.hpas().size(), result.steps(), result.syncs());
        out.println(result.firstLoadIncreaseMillis() >= 0
                ? "Load first increases at " + Figures.duration(result.firstLoadIncreaseMillis()) + "."
                : "The load never increases.");
        String[] header = Figures.COLUMNS;
        List<String[]> rows = result.summaries().stream().map(Figures::row).toList();
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] r : rows) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        printRow(out, header, width);
        for (String[] r : rows) {
            printRow(out, r, width);
        }
        for (int spec = 0; spec < result.summaries().size(); spec++) {
            HpaSummary h = result.summaries().get(spec);
            var changes = result.replicaChanges(h.hpa());
            StringBuilder b = new StringBuilder("Replicas of " + h.hpa() + ": " + s.workload().replicas());
            for (int i = 0; i < Math.min(CHANGES_LISTED, changes.size()); i++) {
                var c = changes.get(i);
                b.append(" -> ").append(c.to()).append(" (").append(Figures.duration(c.timeMillis())).append(")");
            }
            if (changes.size() > CHANGES_LISTED) {
                b.append(" ... and ").append(changes.size() - CHANGES_LISTED).append(" more changes");
            }
            StepDelaysText.wrap(b.toString(), "    ").forEach(out::println);
            StepDelaysText.wrapped(result.scaleSteps().get(spec), "->").forEach(out::println);
        }
        if (s.faults().any()) {
            long metrics = result.summaries().stream().mapToLong(HpaSummary::metricsFailures).sum();
            long writes = result.summaries().stream().mapToLong(HpaSummary::scaleWriteFailures).sum();
            long conflicts = result.summaries().stream().mapToLong(HpaSummary::scaleWriteConflicts).sum();
            out.printf("Faults injected: %d (%d failed metrics calls, %d failed scale writes, %d scale write conflicts; seed %d)%n",
                    result.faultsInjected(), metrics, writes, conflicts, s.faults().seed());
        }
        out.printf("Invariants: %d checks, %d violations%n", result.invariantChecks(), result.invariantViolations());
        for (String v : result.violations()) {
            out.println("  VIOLATION " + v);
        }
    }

    private static void printRow(PrintWriter out, String[] cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            b.append(i == 0 ? pad(cells[i], width[i]) : padLeft(cells[i], width[i]));
        }
        out.println(b.toString().stripTrailing());
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(Math.max(0, w - s.length()));
    }

    private static String padLeft(String s, int w) {
        return " ".repeat(Math.max(0, w - s.length())) + s;
    }
}
