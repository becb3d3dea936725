package io.hpacontroller.sim.report;

import io.hpacontroller.sim.RecordedEvent;
import io.hpacontroller.sim.TimelineRow;
import io.hpacontroller.sim.TraceFields;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/** timeline.csv (one row per HPA per sync) and events.csv. */
public final class TimelineCsv {

    /**
     * The header; the columns are a contract in this order: the first eight from the start, then the cluster's, then the
     * decision trace's key fields ({@link TraceFields}); more may be appended later.
     */
    public static final String HEADER = "time_seconds,hpa,demand,ready_pods,replicas,desired_replicas,metric_value,reason,"
            + "capacity,pods,proposed_replicas,action,"
            + "metric,metric_target,usage_ratio,tolerance,within_tolerance,selected_metric,stabilized_replicas,stabilization_window,"
            + "rate_limit,constraints_applied,min_replicas,max_replicas,error_reason,error_message,decision,metric_age_seconds";

    private TimelineCsv() {
    }

    public static void writeTimeline(List<TimelineRow> rows, Writer out) throws IOException {
        out.write(HEADER);
        out.write('\n');
        StringBuilder b = new StringBuilder(512);
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
                    .append(Csv.capacity(r.capacity())).append(',')
                    .append(r.pods()).append(',')
                    .append(Csv.count(r.proposedReplicas())).append(',')
                    .append(r.action()).append(',');
            TraceFields t = r.trace();
            b.append(Csv.cell(t.metric())).append(',')
                    .append(Csv.number(t.metricTarget())).append(',')
                    .append(Csv.number(t.usageRatio())).append(',')
                    .append(Csv.number(t.tolerance())).append(',')
                    .append(t.withinTolerance() == null ? "" : t.withinTolerance().toString()).append(',')
                    .append(Csv.cell(t.selectedMetric())).append(',')
                    .append(Csv.count(t.stabilizedReplicas())).append(',')
                    .append(t.stabilizationWindow() == null ? "" : t.stabilizationWindow()).append(',')
                    .append(Csv.count(t.rateLimit())).append(',')
                    .append(Csv.cell(String.join(";", t.constraintsApplied()))).append(',')
                    .append(Csv.count(t.minReplicas())).append(',')
                    .append(Csv.count(t.maxReplicas())).append(',')
                    .append(Csv.cell(t.errorReason())).append(',')
                    .append(Csv.cell(t.errorMessage())).append(',')
                    .append(Csv.cell(t.decision())).append(',')
                    .append(t.metricAgeMillis() < 0 ? "" : Csv.seconds(t.metricAgeMillis())).append('\n');
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
