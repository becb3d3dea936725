package io.hpacontroller.sim.report;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.sim.HpaSummary;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;


/**
 * report.html: one self-contained page (inline CSS and SVG, no script, nothing fetched) with, per HPA spec, one line
 * of what delayed each of its scale steps ({@code ul#scale-delays}, from {@link io.hpacontroller.sim.ScaleDelays}), the
 * chart, the summary table ({@code id="summary"}, one {@code tr.hpa-row} per HPA spec, with the settings that are the
 * spec's own), then per HPA spec ({@code section.decisions}) the settings it runs with, the errors its syncs met, its
 * {@link DecisionChart} and its replica changes with the core's reasons, their decisions in words and what delayed them;
 * then the scenario's parameters (with each spec's own beside them) and the HPA specs as YAML.
 */
public final class ReportPage {

    /** Replica changes listed per HPA in the report. */
    static final int CHANGES_LISTED = 40;

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private ReportPage() {
    }

    public static String render(SimulationResult result) {
        Scenario s = result.scenario();
        StringBuilder b = new StringBuilder(128 * 1024);
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>HPA simulation: ").append(Html.escape(s.name())).append("</title>\n")
                .append("<style>body{font:14px/1.45 sans-serif;margin:24px auto;max-width:1000px;color:#111;padding:0 12px}")
                .append("h1{font-size:22px}h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}")
                .append("th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}")
                .append("td.num{text-align:right}tr.hpa-row td:first-child{white-space:nowrap}.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}")
                .append("pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px}.bad{color:#b00020;font-weight:bold}</style>\n")
                .append("</head>\n<body>\n");
        b.append("<h1>HPA simulation: ").append(Html.escape(s.name())).append("</h1>\n");
        if (!s.description().isBlank()) {
            b.append("<p id=\"description\">").append(Html.escape(s.description().strip())).append("</p>\n");
        }
        b.append("<p>").append(Figures.duration(s.durationMillis())).append(" simulated through the hpa-controller decision core, ")
                .append(s.hpas().size()).append(" HPA spec(s) on the same demand, each with its own workload. ")
                .append(result.firstLoadIncreaseMillis() >= 0 ? "The load first increases at " + Figures.duration(result.firstLoadIncreaseMillis()) + "." : "The load never increases.")
                .append("</p>\n");
        scaleDelays(b, result);
        b.append("<figure>\n").append(SvgChart.render(result)).append("</figure>\n");

        b.append("<h2>Summary</h2>\n<table id=\"summary\">\n<thead><tr>");
        for (String c : Figures.COLUMNS) {
            b.append("<th>").append(Html.escape(c)).append("</th>");
        }
        b.append("<th>its own settings</th></tr></thead>\n<tbody>\n");
        for (int i = 0; i < result.summaries().size(); i++) {
            HpaSummary h = result.summaries().get(i);
            String[] cells = Figures.row(h);
            b.append("<tr class=\"hpa-row\" data-hpa=\"").append(Html.escape(h.hpa())).append("\"><td><span class=\"swatch\" style=\"background:")
                    .append(SvgChart.color(i)).append("\"></span>").append(Html.escape(cells[0])).append("</td>");
            for (int c = 1; c < cells.length; c++) {
                b.append("<td class=\"num\">").append(Html.escape(cells[c])).append("</td>");
            }
            List<String> own = SpecSettings.own(s, i);
            b.append("<td class=\"own-settings\">").append(own.isEmpty() ? "the scenario's" : Html.escape(String.join("; ", own))).append("</td>");
            b.append("</tr>\n");
        }
        b.append("</tbody>\n</table>\n");
        b.append("<p>First scale-up: from the first rise of the demand to the first scale-up at or after it. Capacity covers demand: from that rise until the end of the first overload after it, when the Ready pods can serve the demand again (0 s when they never fell short). ")
                .append("Overload: time during which the demand exceeded the capacity of the Ready pods. Replica-seconds: pods (Ready or not) integrated over time, the cost. ")
                .append("Replica changes: how often the replica count changed.</p>\n");
        b.append("<p id=\"invariants\"").append(result.invariantViolations() > 0 ? " class=\"bad\"" : "").append(">Invariants: ")
                .append(result.invariantChecks()).append(" checks, ").append(result.invariantViolations()).append(" violations");
        if (s.faults().any()) {
            b.append("; ").append(result.faultsInjected()).append(" faults injected");
        }
        b.append(".</p>\n");
        if (!result.violations().isEmpty()) {
            b.append("<ul class=\"bad\">");
            for (String v : result.violations()) {
                b.append("<li>").append(Html.escape(v)).append("</li>");
            }
            b.append("</ul>\n");
        }

        b.append("<h2>Decisions</h2>\n<p>Per HPA spec, from the decision trace of each sync: the first metric as the HPA saw it against its "
                + "target, with the tolerance band (inside it the metric asks for no change); the raw proposal of the metrics next to the "
                + "replicas written, between the minReplicas and maxReplicas lines; shaded where the scale-down stabilization window held a "
                + "scale-down; a tick under each sync that failed; and each replica change with its decision in words "
                + "(timeline.csv has every sync's).</p>\n");
        for (int i = 0; i < result.summaries().size(); i++) {
            decisions(b, result, i);
        }

        b.append("<h2>Scenario</h2>\n<p>Each spec runs with these settings unless the summary table lists its own (each spec's own "
                + "are also given here, after the scenario's).</p>\n<table id=\"parameters\"><tbody>\n");
        param(b, "duration / step", Figures.duration(s.durationMillis()) + " / " + Figures.duration(s.stepMillis()));
        List<Map<String, String>> specs = new ArrayList<>();
        for (int i = 0; i < s.hpas().size(); i++) {
            specs.add(SpecSettings.of(s, i));
        }
        SpecSettings.ofScenario(s).forEach((name, value) -> {
            StringBuilder v = new StringBuilder(value);
            for (int i = 0; i < specs.size(); i++) {
                if (!value.equals(specs.get(i).get(name))) {
                    v.append("; ").append(result.summaries().get(i).hpa()).append(": ").append(specs.get(i).get(name));
                }
            }
            param(b, name, v.toString());
        });
        var w = s.workload();
        param(b, "workload", w.replicas() + " replicas; containers " + String.join(", ", w.containers().stream()
                .map(x -> x.name() + " (requests " + requests(w.requestsWritten().getOrDefault(x.name(), Map.of())) + ")").toList())
                + (w.capacity() == null ? "; no capacity limit" : "; capacity " + Csv.number(w.capacity()) + " " + s.load().unit() + " per Ready pod"));
        param(b, "load", s.load().points().size() + " points, " + s.load().interpolation().name().toLowerCase() + " interpolation, unit " + s.load().unit()
                + (s.load().noise() == null ? "" : ", noise " + Csv.number(s.load().noise().relative() * 100) + "% (seed " + s.load().noise().seed() + ")"));
        if (s.faults().any()) {
            param(b, "faults", "metrics failure " + Csv.number(s.faults().metricsFailure()) + ", scale write failure " + Csv.number(s.faults().scaleWriteFailure())
                    + ", scale write conflict " + Csv.number(s.faults().scaleWriteConflict()) + ", seed " + s.faults().seed());
        }
        b.append("</tbody></table>\n");
        b.append("<h2>HPA specs</h2>\n");
        for (HorizontalPodAutoscaler h : s.hpas()) {
            b.append("<pre class=\"hpa-spec\">").append(Html.escape(SERIALIZATION.asYaml(h))).append("</pre>\n");
        }
        b.append("<p>Files: timeline.csv (one row per HPA per sync, with its decision trace's key fields), demand.csv (one row per step: "
                + "the demand and each spec's capacity, as the chart draws them), events.csv (the events the core recorded).</p>\n");
        b.append("</body>\n</html>\n");
        return b.toString();
    }

    /** One spec's decisions: the errors its syncs met, its decision chart, its replica changes with their decisions. */
    private static void decisions(StringBuilder b, SimulationResult result, int i) {
        HpaSummary h = result.summaries().get(i);
        String hpa = Html.escape(h.hpa());
        b.append("<section class=\"decisions\" data-hpa=\"").append(hpa).append("\">\n<h3><span class=\"swatch\" style=\"background:")
                .append(SvgChart.color(i)).append("\"></span>").append(hpa).append("</h3>\n");
        b.append("<p class=\"settings\">Runs with: ").append(Html.escape(String.join("; ", SpecSettings.of(result.scenario(), i).entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).toList()))).append(".</p>\n");
        SyncErrors.render(b, h, result.timelineOf(h.hpa()));
        b.append("<figure>\n").append(DecisionChart.render(result, i)).append("</figure>\n");
        var changes = result.replicaChanges(h.hpa());
        var steps = result.scaleSteps().get(i);
        if (changes.isEmpty()) {
            b.append("<p>No replica change.</p>\n</section>\n");
            return;
        }
        b.append("<table class=\"changes\" data-hpa=\"").append(hpa).append("\"><thead><tr><th>time</th><th>replicas</th>")
                .append("<th>reason (from the core)</th><th>decision (from its trace)</th><th>delayed by (from the traces)</th></tr></thead><tbody>\n");
        for (int c = 0; c < Math.min(CHANGES_LISTED, changes.size()); c++) {
            var change = changes.get(c);
            b.append("<tr><td class=\"num\">").append(Figures.duration(change.timeMillis())).append("</td><td class=\"num\">").append(change.from())
                    .append(" &rarr; ").append(change.to()).append("</td><td>").append(Html.escape(change.reason())).append("</td><td class=\"decision\">")
                    .append(Html.escape(change.decision())).append("</td><td class=\"delayed-by\">").append(Html.escape(StepDelaysText.delayedBy(steps.get(c))))
                    .append("</td></tr>\n");
        }
        b.append("</tbody></table>\n");
        if (changes.size() > CHANGES_LISTED) {
            b.append("<p>... and ").append(changes.size() - CHANGES_LISTED).append(" more (see timeline.csv).</p>\n");
        }
        b.append("</section>\n");
    }

    /** "cpu: 200m, memory: 256Mi", as the API server writes a container's requests; "none" without any. */
    private static String requests(Map<String, String> written) {
        return written.isEmpty() ? "none" : String.join(", ", written.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList());
    }

    /** Per spec, one line: each scale step and what delayed it, from the decision traces ({@link io.hpacontroller.sim.ScaleDelays}). */
    private static void scaleDelays(StringBuilder b, SimulationResult result) {
        b.append("<h2>What delayed each scale step</h2>\n<p>From the first moment the demand asked for a step's replica count (the core's "
                + "proposal with every pod Ready and showing the demand at once) until the step, read from each sync's decision trace: "
                + "<i>waiting for the sync</i> (no sync yet); <i>metrics lag</i> (the metric had not yet shown the load: sampled at the sync "
                + "it would have asked for the step); <i>pods not ready</i> (it would have with every pod Ready); <i>the metric at its "
                + "ceiling</i> (the pods serve at most their capacity, so the metric could not show more: it would have, uncapped); a "
                + "policy or window cap (the recommendation asked for it, the stabilization window, the scale-up or scale-down limit or "
                + "minReplicas held it).</p>\n<ul id=\"scale-delays\">\n");
        for (int i = 0; i < result.summaries().size(); i++) {
            String hpa = result.summaries().get(i).hpa();
            b.append("<li class=\"scale-delays\" data-hpa=\"").append(Html.escape(hpa)).append("\"><span class=\"swatch\" style=\"background:")
                    .append(SvgChart.color(i)).append("\"></span><b>").append(Html.escape(hpa)).append("</b>: ")
                    .append(Html.escape(StepDelaysText.line(result.scaleSteps().get(i), "\u2192"))).append("</li>\n");
        }
        b.append("</ul>\n");
    }

    private static void param(StringBuilder b, String name, String value) {
        b.append("<tr><th>").append(Html.escape(name)).append("</th><td>").append(Html.escape(value)).append("</td></tr>\n");
    }

}
