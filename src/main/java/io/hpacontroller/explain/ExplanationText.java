package io.hpacontroller.explain;

import io.hpacontroller.core.calc.PodCounts;
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.Rebalancing;
import io.hpacontroller.core.calc.ToleranceVerdict;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.RateLimit;
import io.hpacontroller.core.normalize.Stabilization;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.PredictionTrace;
import io.hpacontroller.ops.HpaDecisions;

import java.time.Instant;
import java.util.Locale;

/** {@code explain -o text}: the one-sentence answer, where the history came from, then the trace, section by section. */
public final class ExplanationText {

    private final StringBuilder out = new StringBuilder();

    private ExplanationText() {
    }

    public static String render(Explainer.Explanation e, long now) {
        ExplanationText t = new ExplanationText();
        t.write(e, now);
        return t.out.toString();
    }

    private ExplanationText line(String s) {
        out.append(s).append('\n');
        return this;
    }

    private void write(Explainer.Explanation e, long now) {
        DecisionTrace t = e.trace();
        line(t.hpa() + ": " + e.summary()).line("");
        Explainer.History h = e.history();
        if (h.known()) {
            line("history:  from " + h.source());
        } else {
            line("history:  unknown: " + h.unknown());
            line("          " + h.consequence());
        }
        if (h.lastDecision() != null) {
            line("          the controller's last decision (" + ago(now - h.lastDecision().time()) + "): " + DecisionSummary.of(h.lastDecision()));
        }
        HpaDecisions.Flags f = e.flags();
        line("flags:    tolerance " + number(f.tolerance()) + ", downscale stabilization " + duration(f.downscaleStabilizationMillis())
                + ", cpu initialization " + duration(f.cpuInitializationPeriodMillis()) + ", initial readiness delay "
                + duration(f.initialReadinessDelayMillis()) + ", scale to zero " + (f.scaleToZeroEnabled() ? "on" : "off")
                + (h.source() == null ? " (upstream's defaults: the controller's are unknown)" : " (the controller's)"));
        if (!t.controls().named().isEmpty()) {
            line("controls: " + String.join(", ", t.controls().named()) + " (this HPA's own)");
        }
        if (t.schedule().specMinReplicas() >= 0) {
            line("schedules: " + (t.schedule().activeRule() == null ? "no rule active, minReplicas " + t.schedule().minReplicas()
                    : t.schedule().activeRule() + " -> minReplicas " + t.schedule().minReplicas()));
        }
        if (t.prediction().active()) {
            line("predict: " + t.prediction().setting() + (t.prediction().replicas() < 0 ? ", no proposal"
                    : ", proposes " + t.prediction().replicas() + (t.prediction().raised() ? " (above the metrics: it decides)" : " (not above the metrics)")));
            for (PredictionTrace.PredictedMetric m : t.prediction().metrics()) {
                line("  " + m.metric() + ": " + (m.replicas() >= 0 ? m.replicas() + " replicas for the load " + String.format(Locale.ROOT, "%.4g", m.load())
                        + " forecast for " + Instant.ofEpochMilli(m.at()) + "; " : "") + m.message());
            }
            if (t.prediction().note() != null) {
                line("  " + t.prediction().note());
            }
        }
        line("");

        line("replicas: current " + (t.currentReplicas() < 0 ? "unknown" : t.currentReplicas())
                + (t.minReplicas() < 0 ? "" : ", min " + t.minReplicas() + ", max " + t.maxReplicas())
                + (t.scaleToZero() == null ? "" : "; " + t.scaleToZero()));
        if (!t.metrics().isEmpty()) {
            line("metrics:");
            for (int i = 0; i < t.metrics().size(); i++) {
                metric(i, t.metrics().get(i), t);
            }
            if (t.metricsVerdict() != null) {
                line("  => " + t.metricsVerdict());
            }
        }
        if (t.rescaleRule() != null) {
            line("rule:     " + t.rescaleRule());
        }
        Normalization n = t.normalization();
        if (n != null) {
            normalization(n, t);
        }
        line("decision: " + decision(t));
        if (t.errorMessage() != null) {
            line("error:    " + (t.errorReason() == null ? "" : t.errorReason() + ": ") + t.errorMessage());
        }
        WouldWrite.Writes w = e.wouldWrite();
        line("would write (nothing was written): scale " + (w.scale() == null ? "unchanged" : "to " + w.scale())
                + ", status " + (w.status() == null ? "unchanged" : "with desiredReplicas " + w.status().getDesiredReplicas()));
        for (WouldWrite.Event ev : w.events()) {
            line("          event " + ev.type() + " " + ev.reason() + ": " + ev.message());
        }
    }

    private void metric(int i, MetricTrace m, DecisionTrace t) {
        String head = "  " + (i + 1) + ". " + m.type() + (m.name() == null ? "" : " " + m.name());
        if (m.failed()) {
            line(head + ": failed: " + m.errorReason() + ": " + m.errorMessage());
            if (m.failingSince() > 0) {
                line("     failing for " + duration(t.time() - m.failingSince()) + " (fallback after " + duration(t.controls().fallbackAfterMillis()) + ")"
                        + (m.fallback() ? ": proposal " + m.replicas() + ", the fallback" + (i == t.selectedMetric() ? "  <- selected (the highest proposal)" : "")
                        : ": no proposal yet"));
            }
            return;
        }
        line(head + ": " + m.metric() + " " + value(m, m.current()) + ", target " + value(m, m.target()) + " (" + m.targetType() + ")");
        if (m.sampledBeforeSync() != null) {
            line("     " + m.sampledBeforeSync());
        }
        Proposal p = m.calculation();
        PodCounts pods = p.pods();
        if (pods != null) {
            line("     pods: " + pods.ready() + " ready with samples, " + pods.unready() + " unready or not yet initialized, "
                    + pods.missing() + " missing samples, " + pods.ignored() + " ignored (deleted or failed)"
                    + (pods.samplesWithoutPod() > 0 ? ", " + pods.samplesWithoutPod() + " samples of unlisted pods" : ""));
        }
        line("     ratio " + number(p.usageRatio()) + (p.rawReplicas() >= 0 ? " -> " + p.rawReplicas() + " replicas" : ""));
        Rebalancing r = p.rebalancing();
        if (r != null) {
            line("     rebalanced over " + r.pods() + " pods (missing or unready filled in): ratio " + number(r.ratio()) + " -> " + r.replicas()
                    + " replicas" + (r.held() == null ? "" : "; held: " + r.held()));
        }
        ToleranceVerdict v = p.tolerance();
        if (v != null) {
            line("     tolerance " + number(v.tolerance()) + " (" + v.source() + "): ratio " + number(v.ratio()) + " is "
                    + (v.within() ? "inside" : "outside") + (ToleranceVerdict.NONE.equals(v.direction()) ? "" : ", " + v.direction()));
        }
        String won = i == t.selectedMetric() ? "  <- selected (the highest proposal)" : t.selectedMetric() >= 0 ? "  (lower than the selected one)" : "";
        line("     proposal " + m.replicas() + won);
    }

    private void normalization(Normalization n, DecisionTrace t) {
        line("normalization:");
        line("  rawDesiredReplicas " + t.rawDesiredReplicas() + ", recommendation " + n.recommendation());
        Stabilization s = n.stabilization();
        if (s != null) {
            line("  stabilization: the " + duration(s.windowSeconds() * 1000L) + (Stabilization.SCALE_DOWN.equals(s.window()) ? " scale-down" : " scale-up")
                    + " window kept " + s.keptReplicas()
                    + " (recommended " + ago(s.ageMillis()) + ") -> " + n.stabilized());
        } else {
            line("  stabilization: no change (" + n.stabilized() + ")");
        }
        RateLimit r = n.rateLimit();
        if (r != null) {
            String rule = RateLimit.LEGACY.equals(r.rule()) ? "max(2x, 4)"
                    : r.policyType() == null ? "selectPolicy " + r.selectPolicy()
                    : r.policyType() + " " + r.policyValue() + " per " + duration(r.periodSeconds() * 1000L) + ", selectPolicy " + r.selectPolicy()
                    + "; " + r.eventsInPeriod() + " scale events in the period (+" + r.addedInPeriod() + " -" + r.removedInPeriod()
                    + "), so it started at " + r.periodStartReplicas();
            line("  rate limit (scale " + r.direction() + "): " + rule + ": at " + (RateLimit.UP.equals(r.direction()) ? "most " : "least ")
                    + r.limit() + (r.bound() ? ", applied" : ", not reached"));
        }
        line("  bounds: [" + t.minReplicas() + ", " + t.maxReplicas() + "]" + (n.wokeFromZero() ? "; woken from zero to minReplicas" : ""));
        line("  constraintsApplied: " + n.constraintsApplied());
        line("  conditions: AbleToScale " + n.ableToScaleReason() + ", ScalingLimited " + (n.limited() ? "True " : "False ") + n.limitReason());
    }

    private static String decision(DecisionTrace t) {
        if (t.desiredReplicas() < 0) {
            return "none";
        }
        String decision = switch (t.action()) {
            case SCALE_UP, SCALE_DOWN -> t.action().label().replace('_', ' ') + " to " + t.desiredReplicas() + (t.reason().isEmpty() ? "" : " (" + t.reason() + ")");
            case NONE -> "stay at " + t.desiredReplicas();
        };
        return t.controls().preview() ? decision + " (mode Preview: never written)" : decision;
    }

    private static String value(MetricTrace m, double v) {
        return "Utilization".equals(m.targetType()) ? number(v) + "%" : number(v);
    }

    private static String ago(long millis) {
        return duration(millis) + " ago";
    }

    private static String duration(long millis) {
        return DecisionSummary.duration(millis);
    }

    private static String number(double v) {
        return DecisionSummary.number(v);
    }
}
