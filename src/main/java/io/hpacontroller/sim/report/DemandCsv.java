package io.hpacontroller.sim.report;

import io.hpacontroller.sim.StepListener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;

/**
 * demand.csv, written while the simulation runs: one row per step (and per sync between steps) with the
 * demand and, per HPA spec, the capacity of its Ready pods, its Ready pods and its pods. The chart draws the
 * same values, bucketed; timeline.csv has one row per sync only, so a burst between two syncs shows here.
 */
public final class DemandCsv implements StepListener {

    private final Writer out;
    private final StringBuilder line = new StringBuilder(128);

    /** Writes the header: {@code time_seconds,demand}, then {@code capacity[HPA],ready_pods[HPA],pods[HPA]} per HPA spec. */
    public DemandCsv(Writer out, List<String> hpas) throws IOException {
        this.out = out;
        StringBuilder header = new StringBuilder("time_seconds,demand");
        for (String h : hpas) {
            header.append(',').append(Csv.cell("capacity[" + h + "]")).append(',').append(Csv.cell("ready_pods[" + h + "]"))
                    .append(',').append(Csv.cell("pods[" + h + "]"));
        }
        out.write(header.append('\n').toString());
    }

    /** @throws UncheckedIOException when the file cannot be written */
    @Override
    public void step(long timeMillis, double demand, List<Workload> hpas) {
        line.setLength(0);
        line.append(Csv.seconds(timeMillis)).append(',').append(Csv.number(demand));
        for (Workload w : hpas) {
            line.append(',').append(Csv.capacity(w.capacity()))
                    .append(',').append(w.readyPods()).append(',').append(w.pods());
        }
        try {
            out.write(line.append('\n').toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
