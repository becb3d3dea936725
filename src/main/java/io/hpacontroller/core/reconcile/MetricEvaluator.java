package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ContainerResourceMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ContainerResourceMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ExternalMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ExternalMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricIdentifier;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ObjectMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ObjectMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.PodsMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.PodsMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ResourceMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ResourceMetricStatus;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.calc.CalculationException;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.ResourceUsage;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;

import java.util.List;
import java.util.Map;

/**
 * Computes one entry of {@code spec.metrics}: fetches its samples through the {@link MetricsSource},
 * runs the {@link ReplicaCalculator}, and builds the status entry (upstream {@code computeReplicasForMetric}
 * and the {@code computeStatusFor*Metric} functions).
 */
public final class MetricEvaluator {

    private final ReplicaCalculator calculator;
    private final MetricsSource metrics;
    private final PodSource pods;

    public MetricEvaluator(ReplicaCalculator calculator, MetricsSource metrics, PodSource pods) {
        this.calculator = calculator;
        this.metrics = metrics;
        this.pods = pods;
    }

    /**
     * Where the metric is computed.
     *
     * @param namespace      the HPA's namespace
     * @param podSelector    the scale target's pod selector
     * @param specReplicas   spec.replicas of the scale target
     * @param statusReplicas status.replicas of the scale target
     * @param tolerances     the HPA's tolerances
     * @param now            epoch millis
     */
    public record Context(String namespace, Selector podSelector, int specReplicas, int statusReplicas, Tolerances tolerances, long now) {
    }

    /** A metric the spec does not describe well enough to compute: a spec error with this reason. */
    private static final class InvalidSpec extends Exception {
        InvalidSpec(String message) {
            super(message);
        }
    }

    public MetricResult evaluate(Context ctx, MetricSpec spec) {
        String type = spec == null || spec.getType() == null ? "" : spec.getType();
        return switch (type) {
            case "Resource" -> resource(ctx, spec.getResource());
            case "ContainerResource" -> containerResource(ctx, spec.getContainerResource());
            case "Pods" -> pods(ctx, spec.getPods());
            case "Object" -> object(ctx, spec.getObject());
            case "External" -> external(ctx, spec.getExternal());
            default -> {
                String err = "unknown metric source type \"" + type + "\"";
                yield new MetricResult.Failure("InvalidMetricSourceType", err, err, true);
            }
        };
    }

    // ---- Resource and ContainerResource ----

    private MetricResult resource(Context ctx, ResourceMetricSource source) {
        final String reason = "FailedGetResourceMetric";
        if (source == null || isBlank(source.getName())) {
            return invalid(reason, "invalid resource metric source: the resource name is not set", "failed to get resource metric value: ");
        }
        String name = source.getName();
        ResourceResult r = resourceGeneric(ctx, source.getTarget(), name, "", false);
        String outer = "failed to get " + name + " resource metric value: ";
        if (r.failure != null) {
            return new MetricResult.Failure(reason, r.failure, outer + r.failure, r.specError);
        }
        MetricStatus status = new MetricStatus();
        status.setType("Resource");
        status.setResource(new ResourceMetricStatus(r.value, name));
        return new MetricResult.Proposal(r.replicas, status, r.description, r.timestamp);
    }

    private MetricResult containerResource(Context ctx, ContainerResourceMetricSource source) {
        final String reason = "FailedGetContainerResourceMetric";
        if (source == null || isBlank(source.getName()) || isBlank(source.getContainer())) {
            return invalid(reason, "invalid container resource metric source: the resource name and the container must be set",
                    "failed to get container metric value: ");
        }
        String name = source.getName();
        ResourceResult r = resourceGeneric(ctx, source.getTarget(), name, source.getContainer(), true);
        String outer = "failed to get " + source.getContainer() + " container metric value: ";
        if (r.failure != null) {
            return new MetricResult.Failure(reason, r.failure, outer + r.failure, r.specError);
        }
        MetricStatus status = new MetricStatus();
        status.setType("ContainerResource");
        status.setContainerResource(new ContainerResourceMetricStatus(source.getContainer(), r.value, name));
        return new MetricResult.Proposal(r.replicas, status, r.description, r.timestamp);
    }

    private static final class ResourceResult {
        int replicas;
        MetricValueStatus value;
        String description;
        long timestamp;
        String failure;
        boolean specError;
    }

    private ResourceResult resourceGeneric(Context ctx, MetricTarget target, String resource, String container, boolean containerMetric) {
        ResourceResult out = new ResourceResult();
        try {
            if (target == null) {
                throw new InvalidSpec("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set");
            }
            if (target.getAverageValue() != null) {
                long targetUsage = positiveMilli(target.getAverageValue(), "averageValue");
                Fetched fetched = fetchResource(ctx, resource, container);
                ReplicaCalculator.UsageProposal p;
                try {
                    p = calculator.averageValue(ctx.specReplicas(), targetUsage, resource, ctx.tolerances(),
                            listPods(ctx), fetched.metrics, ctx.now());
                } catch (CalculationException e) {
                    out.failure = "failed to get " + resource + " usage: " + e.getMessage();
                    return out;
                }
                out.replicas = p.replicas();
                out.value = new MetricValueStatus(null, Quantities.decimal(p.usage()), null);
                out.description = resource + " resource";
                out.timestamp = fetched.timestamp;
                return out;
            }
            if (target.getAverageUtilization() == null) {
                throw new InvalidSpec("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set");
            }
            int targetUtilization = target.getAverageUtilization();
            if (targetUtilization <= 0) {
                throw new InvalidSpec("invalid resource metric source: averageUtilization must be greater than 0, got " + targetUtilization);
            }
            Fetched fetched = fetchResource(ctx, resource, container);
            ReplicaCalculator.UtilizationProposal p;
            try {
                p = calculator.utilization(ctx.specReplicas(), targetUtilization, resource, container, ctx.tolerances(),
                        listPods(ctx), fetched.metrics, ctx.now());
            } catch (CalculationException e) {
                out.failure = "failed to get " + resource + " utilization: " + e.getMessage();
                return out;
            }
            out.replicas = p.replicas();
            out.value = new MetricValueStatus(p.utilization(), Quantities.decimal(p.rawAverage()), null);
            out.description = resource + (containerMetric ? " container" : "") + " resource utilization (percentage of request)";
            out.timestamp = fetched.timestamp;
            return out;
        } catch (InvalidSpec e) {
            out.failure = e.getMessage();
            out.specError = true;
            return out;
        } catch (FetchFailed e) {
            out.failure = "failed to get " + resource + (target.getAverageValue() != null ? " usage: " : " utilization: ") + e.getMessage();
            return out;
        }
    }

    private record Fetched(Map<String, PodMetric> metrics, long timestamp) {
    }

    /** A fetch through the metrics port failed; the message is ready for users. */
    private static final class FetchFailed extends Exception {
        FetchFailed(String message) {
            super(message);
        }
    }

    private Fetched fetchResource(Context ctx, String resource, String container) throws FetchFailed {
        List<PodUsage> usage;
        try {
            usage = metrics.podUsage(ctx.namespace(), ctx.podSelector(), resource);
        } catch (ApiException e) {
            throw new FetchFailed("unable to get metrics for resource " + resource + ": " + e.getMessage());
        }
        if (usage.isEmpty()) {
            throw new FetchFailed("unable to get metrics for resource " + resource + ": no metrics returned from resource metrics API");
        }
        try {
            return new Fetched(ResourceUsage.perPod(usage, resource, container), usage.get(0).timestamp());
        } catch (CalculationException e) {
            throw new FetchFailed(e.getMessage());
        }
    }

    // ---- Pods ----

    private MetricResult pods(Context ctx, PodsMetricSource source) {
        final String reason = "FailedGetPodsMetric";
        final String outer = "failed to get pods metric value: ";
        try {
            if (source == null || source.getMetric() == null || isBlank(source.getMetric().getName())) {
                throw new InvalidSpec("invalid pods metric source: the metric name is not set");
            }
            if (source.getTarget() == null || source.getTarget().getAverageValue() == null) {
                throw new InvalidSpec("invalid pods metric source: an average value target must be set");
            }
            long target = positiveMilli(source.getTarget().getAverageValue(), "averageValue");
            Selector metricSelector = metricSelector(source.getMetric());
            String name = source.getMetric().getName();
            Map<String, PodMetric> samples;
            try {
                samples = metrics.podsMetric(ctx.namespace(), name, ctx.podSelector(), metricSelector);
            } catch (ApiException e) {
                String msg = "unable to get metric " + name + ": " + e.getMessage();
                return new MetricResult.Failure(reason, msg, outer + msg, false);
            }
            if (samples.isEmpty()) {
                String msg = "unable to get metric " + name + ": no metrics returned from custom metrics API";
                return new MetricResult.Failure(reason, msg, outer + msg, false);
            }
            ReplicaCalculator.UsageProposal p;
            try {
                p = calculator.averageValue(ctx.specReplicas(), target, "", ctx.tolerances(), listPods(ctx), samples, ctx.now());
            } catch (CalculationException e) {
                return new MetricResult.Failure(reason, e.getMessage(), outer + e.getMessage(), false);
            }
            MetricStatus status = new MetricStatus();
            status.setType("Pods");
            status.setPods(new PodsMetricStatus(new MetricValueStatus(null, Quantities.decimal(p.usage()), null), identifier(source.getMetric())));
            return new MetricResult.Proposal(p.replicas(), status, "pods metric " + name, firstTimestamp(samples));
        } catch (InvalidSpec e) {
            return new MetricResult.Failure(reason, e.getMessage(), outer + e.getMessage(), true);
        }
    }

    // ---- Object ----

    private MetricResult object(Context ctx, ObjectMetricSource source) {
        final String reason = "FailedGetObjectMetric";
        final String outer = "failed to get object metric value: ";
        try {
            if (source == null || source.getMetric() == null || isBlank(source.getMetric().getName())) {
                throw new InvalidSpec("invalid object metric source: the metric name is not set");
            }
            Selector metricSelector = metricSelector(source.getMetric());
            CrossVersionObjectReference ref = source.getDescribedObject();
            if (ref == null || isBlank(ref.getKind()) || isBlank(ref.getName())) {
                throw new InvalidSpec("invalid object metric source: describedObject must name a kind and an object");
            }
            MetricTarget target = source.getTarget();
            boolean value = target != null && "Value".equals(target.getType()) && target.getValue() != null;
            boolean average = target != null && "AverageValue".equals(target.getType()) && target.getAverageValue() != null;
            if (!value && !average) {
                throw new InvalidSpec("invalid object metric source: neither a value target nor an average value target was set");
            }
            long targetMilli = positiveMilli(value ? target.getValue() : target.getAverageValue(), value ? "value" : "averageValue");
            String name = source.getMetric().getName();
            // upstream wraps an AverageValue failure once more than a Value one
            String wrap = outer + (value ? "" : "failed to get " + name + " object metric: ");
            MetricsSource.ObjectMetricValue sample;
            try {
                sample = metrics.objectMetric(ctx.namespace(), name, ref, metricSelector);
            } catch (ApiException e) {
                // upstream's format string, its argument order included: the kind lands after the metric name
                // and the error after the object ("unable to get metric rps: Ingress on shop web/<error>")
                String msg = "unable to get metric " + name + ": " + ref.getKind() + " on " + ctx.namespace() + " " + ref.getName() + "/" + e.getMessage();
                return new MetricResult.Failure(reason, msg, wrap + msg, false);
            }
            ReplicaCalculator.UsageProposal p;
            try {
                p = totalProposal(ctx, !value, targetMilli, sample.value());
            } catch (CalculationException e) {
                return new MetricResult.Failure(reason, e.getMessage(), wrap + e.getMessage(), false);
            }
            MetricStatus status = new MetricStatus();
            status.setType("Object");
            // as upstream: an AverageValue entry names no described object (Go's zero reference, {"kind":"","name":""})
            CrossVersionObjectReference described = value ? ref : new CrossVersionObjectReferenceBuilder().withKind("").withName("").build();
            status.setObject(new ObjectMetricStatus(totalStatus(!value, p.usage()), described, identifier(source.getMetric())));
            // as upstream, an AverageValue Object metric is described as an external one
            String description = value ? ref.getKind() + " metric " + name : "external metric " + name + "(" + selectorText(source.getMetric()) + ")";
            return new MetricResult.Proposal(p.replicas(), status, description, sample.timestamp());
        } catch (InvalidSpec e) {
            return new MetricResult.Failure(reason, e.getMessage(), outer + e.getMessage(), true);
        }
    }

    // ---- External ----

    private MetricResult external(Context ctx, ExternalMetricSource source) {
        final String reason = "FailedGetExternalMetric";
        String name = source == null || source.getMetric() == null || source.getMetric().getName() == null ? "" : source.getMetric().getName();
        final String outer = "failed to get " + name + " external metric value: ";
        try {
            if (name.isEmpty()) {
                throw new InvalidSpec("invalid external metric source: the metric name is not set");
            }
            MetricTarget target = source.getTarget();
            boolean average = target != null && target.getAverageValue() != null;
            boolean value = target != null && !average && target.getValue() != null;
            if (!value && !average) {
                throw new InvalidSpec("invalid external metric source: neither a value target nor an average value target was set");
            }
            long targetMilli = positiveMilli(average ? target.getAverageValue() : target.getValue(), average ? "averageValue" : "value");
            // upstream's calculator converts the selector and fetches, and its caller wraps what failed there twice
            String wrap = outer + (average ? "failed to get " + name + " external metric: " : "failed to get external metric " + name + ": ");
            Selector metricSelector;
            try {
                metricSelector = metricSelector(source.getMetric());
            } catch (InvalidSpec e) {
                return new MetricResult.Failure(reason, e.getMessage(), wrap + e.getMessage(), true);
            }
            String fetching = "unable to get external metric " + ctx.namespace() + "/" + name + "/" + selectorText(source.getMetric()) + ": ";
            MetricsSource.ExternalMetricValues sample;
            try {
                sample = metrics.externalMetric(ctx.namespace(), name, metricSelector);
            } catch (ApiException e) {
                return new MetricResult.Failure(reason, fetching + e.getMessage(), wrap + fetching + e.getMessage(), false);
            }
            if (sample.values().isEmpty()) {
                String msg = fetching + "no metrics returned from external metrics API";
                return new MetricResult.Failure(reason, msg, wrap + msg, false);
            }
            ReplicaCalculator.UsageProposal p;
            try {
                p = totalProposal(ctx, average, targetMilli, ReplicaCalculator.sum(sample.values()));
            } catch (CalculationException e) {
                return new MetricResult.Failure(reason, e.getMessage(), wrap + e.getMessage(), false);
            }
            MetricStatus status = new MetricStatus();
            status.setType("External");
            status.setExternal(new ExternalMetricStatus(totalStatus(average, p.usage()), identifier(source.getMetric())));
            return new MetricResult.Proposal(p.replicas(), status, "external metric " + name + "(" + selectorText(source.getMetric()) + ")", sample.timestamp());
        } catch (InvalidSpec e) {
            return new MetricResult.Failure(reason, e.getMessage(), outer + e.getMessage(), true);
        }
    }

    // ---- helpers ----

    /**
     * An Object or External metric's total against its target: a Value target is the whole total over the
     * ready pods, an AverageValue target the total divided over status.replicas.
     */
    private ReplicaCalculator.UsageProposal totalProposal(Context ctx, boolean average, long target, long total) throws CalculationException {
        return average
                ? calculator.averageOverReplicas(ctx.statusReplicas(), target, total, ctx.tolerances())
                : calculator.value(ctx.specReplicas(), target, total, ctx.tolerances(), () -> listPods(ctx));
    }

    /** The current value of an Object or External metric as status.currentMetrics reports it. */
    private static MetricValueStatus totalStatus(boolean average, long usage) {
        return average ? new MetricValueStatus(null, Quantities.decimal(usage), null) : new MetricValueStatus(null, null, Quantities.decimal(usage));
    }

    private List<PodInfo> listPods(Context ctx) {
        return pods.list(ctx.namespace(), ctx.podSelector());
    }

    private static MetricResult invalid(String reason, String message, String outer) {
        return new MetricResult.Failure(reason, message, outer + message, true);
    }

    private static long positiveMilli(Quantity q, String field) throws InvalidSpec {
        long milli;
        try {
            milli = Quantities.milliValue(q);
        } catch (IllegalArgumentException e) {
            throw new InvalidSpec("invalid metric target: " + field + " " + e.getMessage());
        }
        if (milli <= 0) {
            throw new InvalidSpec("invalid metric target: " + field + " must be positive, got " + q);
        }
        return milli;
    }

    private static Selector metricSelector(MetricIdentifier metric) throws InvalidSpec {
        if (metric.getSelector() == null) {
            return Selector.everything();
        }
        try {
            return Selector.fromLabelSelector(metric.getSelector());
        } catch (IllegalArgumentException e) {
            throw new InvalidSpec(e.getMessage());  // upstream's LabelSelectorAsSelector error, as it is
        }
    }

    /**
     * A metric's selector in messages. Upstream prints the Go struct ({@code &LabelSelector{MatchLabels:...}}); we
     * print its label-selector text ({@code queue=jobs}), "nil" when there is none, as upstream. An invalid selector
     * never reaches a message: its metric failed before.
     */
    private static String selectorText(MetricIdentifier metric) {
        if (metric.getSelector() == null) {
            return "nil";
        }
        try {
            return Selector.fromLabelSelector(metric.getSelector()).toString();
        } catch (IllegalArgumentException e) {
            return String.valueOf(metric.getSelector());
        }
    }

    private static MetricIdentifier identifier(MetricIdentifier spec) {
        return new MetricIdentifier(spec.getName(), spec.getSelector());
    }

    private static long firstTimestamp(Map<String, PodMetric> samples) {
        for (PodMetric m : samples.values()) {
            return m.timestamp();
        }
        return 0;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isEmpty();
    }
}
