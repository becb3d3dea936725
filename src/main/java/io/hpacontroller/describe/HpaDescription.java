package io.hpacontroller.describe;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code kubectl describe hpa}'s reading of an autoscaling/v2 HPA (k8s.io/kubectl pkg/describe,
 * {@code describeHorizontalPodAutoscalerV2}, {@code printDirectionBehavior}, {@code DescribeEvents}), for both APIs: a
 * mirror HPA comes as an autoscaling/v2 object. The same lines, labels and alignment, so that what users know how to
 * read (and scripts that read it) works for mirror HPAs too.
 */
public final class HpaDescription {

    /** Go's {@code time.RFC1123Z}, in the local zone as kubectl prints it. */
    private static final DateTimeFormatter RFC1123Z = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss Z", Locale.ENGLISH);
    /** kubectl's {@code maxAnnotationLen}: a longer annotation is printed on lines of its own, each shortened. */
    private static final int MAX_ANNOTATION_LENGTH = 140;
    private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private HpaDescription() {
    }

    /**
     * The description.
     *
     * @param events the HPA's events, null when they could not be listed (no Events section, as kubectl)
     * @param now    when, for the events' ages
     * @param zone   the zone of CreationTimestamp
     */
    public static String render(HorizontalPodAutoscaler hpa, List<Event> events, Instant now, ZoneId zone) {
        TabbedText w = new TabbedText();
        var meta = hpa.getMetadata();
        HorizontalPodAutoscalerSpec spec = hpa.getSpec();
        HorizontalPodAutoscalerStatus status = hpa.getStatus() != null ? hpa.getStatus() : new HorizontalPodAutoscalerStatus();
        w.write(0, "Name:\t" + meta.getName() + "\n");
        w.write(0, "Namespace:\t" + meta.getNamespace() + "\n");
        labels(w, meta.getLabels());
        annotations(w, meta.getAnnotations());
        String created = meta.getCreationTimestamp() == null ? "Mon, 01 Jan 0001 00:00:00 +0000"
                : RFC1123Z.format(Instant.parse(meta.getCreationTimestamp()).atZone(zone));
        w.write(0, "CreationTimestamp:\t" + created + "\n");
        w.write(0, "Reference:\t" + spec.getScaleTargetRef().getKind() + "/" + spec.getScaleTargetRef().getName() + "\n");
        w.write(0, "Metrics:\t( current / target )\n");
        List<MetricSpec> metrics = spec.getMetrics() == null ? List.of() : spec.getMetrics();
        List<MetricStatus> current = status.getCurrentMetrics() == null ? List.of() : status.getCurrentMetrics();
        for (int i = 0; i < metrics.size(); i++) {
            metric(w, metrics.get(i), i < current.size() ? current.get(i) : null);
        }
        w.write(0, "Min replicas:\t" + (spec.getMinReplicas() == null ? "<unset>" : spec.getMinReplicas()) + "\n");
        w.write(0, "Max replicas:\t" + spec.getMaxReplicas() + "\n");
        if (spec.getBehavior() != null) {
            w.write(0, "Behavior:\n");
            direction(w, "Scale Up", spec.getBehavior().getScaleUp());
            direction(w, "Scale Down", spec.getBehavior().getScaleDown());
        }
        w.write(0, spec.getScaleTargetRef().getKind() + " pods:\t");
        w.write(0, orZero(status.getCurrentReplicas()) + " current / " + orZero(status.getDesiredReplicas()) + " desired\n");
        if (status.getConditions() != null && !status.getConditions().isEmpty()) {
            w.write(0, "Conditions:\n");
            w.write(1, "Type\tStatus\tReason\tMessage\n");
            w.write(1, "----\t------\t------\t-------\n");
            for (HorizontalPodAutoscalerCondition c : status.getConditions()) {
                w.write(1, c.getType() + "\t" + c.getStatus() + "\t" + text(c.getReason()) + "\t" + text(c.getMessage()) + "\n");
            }
        }
        if (events != null) {
            events(w, events, now);
        }
        return w.text();
    }

    private static void metric(TabbedText w, MetricSpec m, MetricStatus s) {
        String type = m.getType() == null ? "" : m.getType();
        switch (type) {
            case "External" -> {
                MetricTarget t = m.getExternal().getTarget();
                MetricValueStatus c = s != null && s.getExternal() != null ? s.getExternal().getCurrent() : null;
                String name = quoted(m.getExternal().getMetric().getName());
                if (t.getAverageValue() != null) {
                    w.write(1, name + " (target average value):\t" + current(c, MetricValueStatus::getAverageValue) + " / " + q(t.getAverageValue()) + "\n");
                } else {
                    w.write(1, name + " (target value):\t" + (c == null ? "<unknown>" : q(c.getValue())) + " / " + q(t.getValue()) + "\n");
                }
            }
            case "Pods" -> {
                MetricValueStatus c = s != null && s.getPods() != null ? s.getPods().getCurrent() : null;
                w.write(1, quoted(m.getPods().getMetric().getName()) + " on pods:\t" + (c == null ? "<unknown>" : q(c.getAverageValue()))
                        + " / " + q(m.getPods().getTarget().getAverageValue()) + "\n");
            }
            case "Object" -> {
                var o = m.getObject();
                w.write(1, quoted(o.getMetric().getName()) + " on " + o.getDescribedObject().getKind() + "/" + o.getDescribedObject().getName() + " ");
                MetricValueStatus c = s != null && s.getObject() != null ? s.getObject().getCurrent() : null;
                if ("AverageValue".equals(o.getTarget().getType())) {
                    w.write(0, "(target average value):\t" + (c == null ? "<unknown>" : q(c.getAverageValue())) + " / " + q(o.getTarget().getAverageValue()) + "\n");
                } else {
                    w.write(0, "(target value):\t" + (c == null ? "<unknown>" : q(c.getValue())) + " / " + q(o.getTarget().getValue()) + "\n");
                }
            }
            case "Resource" -> {
                w.write(1, "resource " + m.getResource().getName() + " on pods");
                resourceTarget(w, m.getResource().getTarget(), s != null && s.getResource() != null ? s.getResource().getCurrent() : null);
            }
            case "ContainerResource" -> {
                var r = m.getContainerResource();
                w.write(1, "resource " + r.getName() + " of container \"" + r.getContainer() + "\" on pods");
                resourceTarget(w, r.getTarget(), s != null && s.getContainerResource() != null ? s.getContainerResource().getCurrent() : null);
            }
            default -> w.write(1, "<unknown metric type " + quoted(type) + ">\n");
        }
    }

    private static void resourceTarget(TabbedText w, MetricTarget t, MetricValueStatus c) {
        if (t.getAverageValue() != null) {
            w.write(0, ":\t" + (c == null ? "<unknown>" : q(c.getAverageValue())) + " / " + q(t.getAverageValue()) + "\n");
            return;
        }
        String current = c == null || c.getAverageUtilization() == null ? "<unknown>"
                : c.getAverageUtilization() + "% (" + q(c.getAverageValue()) + ")";
        String target = t.getAverageUtilization() == null ? "<auto>" : t.getAverageUtilization() + "%";
        w.write(1, "(as a percentage of request):\t" + current + " / " + target + "\n");
    }

    private static String current(MetricValueStatus c, Function<MetricValueStatus, Quantity> value) {
        return c == null || value.apply(c) == null ? "<unknown>" : q(value.apply(c));
    }

    private static void direction(TabbedText w, String name, HPAScalingRules rules) {
        if (rules == null) {
            return;
        }
        w.write(1, name + ":\n");
        if (rules.getStabilizationWindowSeconds() != null) {
            w.write(2, "Stabilization Window: " + rules.getStabilizationWindowSeconds() + " seconds\n");
        }
        if (rules.getPolicies() != null && !rules.getPolicies().isEmpty()) {
            w.write(2, "Select Policy: " + (rules.getSelectPolicy() == null ? "Max" : rules.getSelectPolicy()) + "\n");
            w.write(2, "Policies:\n");
            for (HPAScalingPolicy p : rules.getPolicies()) {
                w.write(3, "- Type: " + p.getType() + "\tValue: " + orZero(p.getValue()) + "\tPeriod: " + orZero(p.getPeriodSeconds()) + " seconds\n");
            }
        }
    }

    private static void labels(TabbedText w, Map<String, String> labels) {
        w.write(0, "Labels:\t");
        if (labels == null || labels.isEmpty()) {
            w.write(0, "<none>\n");
            return;
        }
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
            w.write(0, (first ? "" : "\t") + e.getKey() + "=" + e.getValue() + "\n");
            first = false;
        }
    }

    private static void annotations(TabbedText w, Map<String, String> annotations) {
        w.write(0, "Annotations:\t");
        TreeMap<String, String> shown = new TreeMap<>(annotations == null ? Map.of() : annotations);
        shown.remove(LAST_APPLIED);
        if (shown.isEmpty()) {
            w.write(0, "<none>\n");
            return;
        }
        boolean first = true;
        for (Map.Entry<String, String> e : shown.entrySet()) {
            w.write(0, first ? "" : "\t");
            first = false;
            String value = e.getValue().endsWith("\n") ? e.getValue().substring(0, e.getValue().length() - 1) : e.getValue();
            if (bytes(value) + bytes(e.getKey()) + 2 > MAX_ANNOTATION_LENGTH || value.contains("\n")) {
                w.write(0, e.getKey() + ":\n");
                for (String line : value.split("\n", -1)) {
                    w.write(0, "\t  " + shorten(line, MAX_ANNOTATION_LENGTH - 2) + "\n");
                }
            } else {
                w.write(0, e.getKey() + ": " + value + "\n");
            }
        }
    }

    /** kubectl's {@code DescribeEvents}: oldest first, the age of the last occurrence and, when repeated, how often since the first. */
    private static void events(TabbedText w, List<Event> events, Instant now) {
        if (events.isEmpty()) {
            w.write(0, "Events:\t<none>\n");
            return;
        }
        w.flush();
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparing(HpaDescription::sortTime));
        w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
        w.write(1, "----\t------\t----\t----\t-------\n");
        for (Event e : sorted) {
            String first = e.getEventTime() != null && e.getEventTime().getTime() != null ? age(e.getEventTime().getTime(), now) : age(e.getFirstTimestamp(), now);
            String interval;
            if (e.getSeries() != null) {
                interval = age(micro(e.getSeries().getLastObservedTime()), now) + " (x" + orZero(e.getSeries().getCount()) + " over " + first + ")";
            } else if (e.getCount() != null && e.getCount() > 1) {
                interval = age(e.getLastTimestamp(), now) + " (x" + e.getCount() + " over " + first + ")";
            } else {
                interval = first;
            }
            String source = e.getSource() != null && e.getSource().getComponent() != null && !e.getSource().getComponent().isEmpty()
                    ? e.getSource().getComponent() : text(e.getReportingComponent());
            w.write(1, e.getType() + "\t" + e.getReason() + "\t" + interval + "\t" + source + "\t" + text(e.getMessage()).strip() + "\n");
        }
    }

    /** kubectl's {@code eventTime}: the series' last observation, else lastTimestamp, else eventTime. */
    private static Instant sortTime(Event e) {
        String t = e.getSeries() != null ? micro(e.getSeries().getLastObservedTime())
                : e.getLastTimestamp() != null && !e.getLastTimestamp().isEmpty() ? e.getLastTimestamp() : micro(e.getEventTime());
        return t == null || t.isEmpty() ? Instant.EPOCH : Instant.parse(t);
    }

    private static String age(String time, Instant now) {
        return time == null || time.isEmpty() ? "<unknown>" : HumanAge.of(Duration.between(Instant.parse(time), now));
    }

    private static String micro(MicroTime t) {
        return t == null ? null : t.getTime();
    }

    private static String quoted(String s) {
        return "\"" + (s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")) + "\"";
    }

    /** A quantity as the API server wrote it (its canonical form); Go prints a missing one as {@code <nil>}. */
    private static String q(Quantity quantity) {
        return quantity == null ? "<nil>" : quantity.toString();
    }

    private static int orZero(Integer i) {
        return i == null ? 0 : i;
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static String shorten(String s, int max) {
        return s.length() > max ? s.substring(0, max) + "..." : s;
    }
}
