package io.hpacontroller.sim.report;

import io.hpacontroller.sim.RecordedEvent;
import io.hpacontroller.sim.TimelineRow;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/** timeline.csv (one row per HPA per sync) and events.csv. */
public final class TimelineCsv {

    /** The header; the first eight columns are a stable contract, more may be appended later. */
    public static final String HEADER = "time_seconds,hpa,demand,ready_pods,replicas,desired_replicas,metric_value,reason,"
            + "capacity,pods,proposed_replicas,action";

    private TimelineCsv() {
    }

    public static void writeTimeline(List<TimelineRow> rows, Writer out) throws IOException {
        out.write(HEADER);
        out.write('\n');
        StringBuilder b = new StringBuilder(160);
        for (TimelineRow r : rows) {
            b.setLength(0);
            b.append(Csv.seconds(r.timeMillis())).append(',')
                    .append(Csv.cell(r.hpa())).append(',')
                    .append(Csv.number(r.demand())).append(',')
                    .append(r.readyPods()).append(',')
                    .append(r.replicas()).append(',')
                    .append(r.desiredReplicas()).append(',')
                    .append(Csv.cell(r.metricValue())).append(',')
                    .append(Csv.cell(r.reason())).append(',')
                    .append(Double.isInfinite(r.capacity()) ? "" : Csv.number(r.capacity())).append(',')
                    .append(r.pods()).append(',')
                    .append(r.proposedReplicas() < 0 ? "" : Integer.toString(r.proposedReplicas())).append(',')
                    .append(r.action()).append('\n');
            out.write(b.toString());
        }
    }

    public static void writeEvents(List<RecordedEvent> events, Writer out) throws IOException {
        out.write("time_seconds,hpa,type,reason,message\n");
        for (RecordedEvent e : events) {
            out.write(Csv.seconds(e.timeMillis()) + "," + Csv.cell(e.hpa()) + "," + e.type() + "," + Csv.cell(e.reason()) + ","
                    + Csv.cell(e.message()) + "\n");
        }
    }
}
