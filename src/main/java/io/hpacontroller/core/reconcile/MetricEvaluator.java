package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ContainerResourceMetricSource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.ContainerResourceMetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
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
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.ResourceUsage;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.validation.FieldError;
import io.hpacontroller.core.validation.FieldPath;
import io.hpacontroller.core.validation.HpaValidation;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Computes one entry of {@code spec.metrics}: fetches its samples through the {@link MetricsSource},
 * runs the {@link ReplicaCalculator}, and builds the status entry (upstream {@code computeReplicasForMetric}
 * and the {@code computeStatusFor*Metric} functions). Every way a metric can fail, a spec the API would
 * refuse, a fetch or a calculation, leaves through one {@link MetricError} and becomes one failed
 * {@link MetricTrace}.
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

    /**
     * One entry of {@code spec.metrics}, computed.
     *
     * @param trace  the proposal and how it came about, or the error
     * @param status its {@code status.currentMetrics} entry (an empty one when it failed, as upstream)
     */
    public record Evaluated(MetricTrace trace, MetricStatus status) {
    }

    /**
     * Why a metric gave no proposal: the message as the event says it, and the prefix that names the metric
     * in the error the sync reports. Thrown without a stack trace: it is an answer, not a bug.
     */
    private static final class MetricError extends Exception {
        final String outer;
        final boolean specError;

        MetricError(String outer, String message, boolean specError) {
            super(message, null, false, false);
            this.outer = outer;
            this.specError = specError;
        }

        static MetricError spec(String outer, String message) {
            return new MetricError(outer, message, true);
        }

        static MetricError failed(String outer, String message) {
            return new MetricError(outer, message, false);
        }
    }

    /** The first entry of {@code spec.metrics} (or the only one). */
    public Evaluated evaluate(Context ctx, MetricSpec spec) {
        return evaluate(ctx, spec, 0);
    }

    /** The entry {@code index} of {@code spec.metrics}, which a complaint about its fields names ({@code spec.metrics[1].pods.target.averageValue}). */
    public Evaluated evaluate(Context ctx, MetricSpec spec, int index) {
        String type = spec == null || spec.getType() == null ? "" : spec.getType();
        FieldPath at = FieldPath.of("spec").child("metrics").index(index);
        try {
            return switch (type) {
                case "Resource" -> resource(ctx, spec.getResource(), at.child("resource"));
                case "ContainerResource" -> containerResource(ctx, spec.getContainerResource(), at.child("containerResource"));
                case "Pods" -> pods(ctx, spec.getPods(), at.child("pods"));
                case "Object" -> object(ctx, spec.getObject(), at.child("object"));
                case "External" -> external(ctx, spec.getExternal(), at.child("external"));
                default -> throw MetricError.spec("", "unknown metric source type \"" + type + "\"");
            };
        } catch (MetricError e) {
            MetricTrace failed = new MetricTrace(type, nameOf(spec), null, null, Double.NaN, Double.NaN, 0, null, -1,
                    failureReason(type), e.getMessage(), e.outer + e.getMessage(), e.specError);
            return new Evaluated(failed, new MetricStatus());
        }
    }

    /** The reason of the event and of ScalingActive=False when a metric of this type fails. */
    private static String failureReason(String type) {
        return switch (type) {
            case "Resource" -> "FailedGetResourceMetric";
            case "ContainerResource" -> "FailedGetContainerResourceMetric";
            case "Pods" -> "FailedGetPodsMetric";
            case "Object" -> "FailedGetObjectMetric";
            case "External" -> "FailedGetExternalMetric";
            default -> "InvalidMetricSourceType";
        };
    }

    /** The resource or metric name the spec gives, null when it gives none. */
    private static String nameOf(MetricSpec spec) {
        if (spec == null) {
            return null;
        }
        if (spec.getResource() != null) {
            return spec.getResource().getName();
        }
        if (spec.getContainerResource() != null) {
            return spec.getContainerResource().getName();
        }
        MetricIdentifier id = spec.getPods() != null ? spec.getPods().getMetric()
                : spec.getObject() != null ? spec.getObject().getMetric()
                : spec.getExternal() != null ? spec.getExternal().getMetric() : null;
        return id == null ? null : id.getName();
    }

    private static MetricTrace proposal(String type, String name, String metric, String targetType, double target, double current,
                                        long timestamp, Proposal p) {
        return new MetricTrace(type, name, metric, targetType, target, current, timestamp, p, p.replicas(), null, null, null, false);
    }

    // ---- Resource and ContainerResource ----

    private Evaluated resource(Context ctx, ResourceMetricSource source, FieldPath at) throws MetricError {
        if (source == null || isBlank(source.getName())) {
            throw MetricError.spec("failed to get resource metric value: ", "invalid resource metric source: the resource name is not set");
        }
        String name = source.getName();
        return resourceGeneric(ctx, "Resource", source.getTarget(), at, name, "", "failed to get " + name + " resource metric value: ");
    }

    private Evaluated containerResource(Context ctx, ContainerResourceMetricSource source, FieldPath at) throws MetricError {
        if (source == null || isBlank(source.getName()) || isBlank(source.getContainer())) {
            throw MetricError.spec("failed to get container metric value: ",
                    "invalid container resource metric source: the resource name and the container must be set");
        }
        return resourceGeneric(ctx, "ContainerResource", source.getTarget(), at, source.getName(), source.getContainer(),
                "failed to get " + source.getContainer() + " container metric value: ");
    }

    /** Upstream's computeStatusForResourceMetricGeneric: an average value (usage) target, else an average utilization one. */
    private Evaluated resourceGeneric(Context ctx, String type, MetricTarget target, FieldPath at, String resource, String container, String outer)
            throws MetricError {
        if (target == null) {
            throw MetricError.spec(outer, "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set");
        }
        if (target.getAverageValue() != null) {
            long targetUsage = positiveMilli(target.getAverageValue(), at.child("target").child("averageValue"), outer);
            return resourceAverageValue(ctx, type, targetUsage, resource, container, outer);
        }
        if (target.getAverageUtilization() == null) {
            throw MetricError.spec(outer, "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set");
        }
        int targetUtilization = target.getAverageUtilization();
        if (targetUtilization <= 0) {
            throw MetricError.spec(outer, "invalid resource metric source: averageUtilization must be greater than 0, got " + targetUtilization);
        }
        return resourceUtilization(ctx, type, targetUtilization, resource, container, outer);
    }

    private Evaluated resourceAverageValue(Context ctx, String type, long targetUsage, String resource, String container, String outer)
            throws MetricError {
        String failed = "failed to get " + resource + " usage: ";
        Map<String, PodMetric> fetched = fetchResource(ctx, resource, container, outer, failed);
        Proposal p = calculated(outer, failed,
                () -> calculator.averageValue(ctx.specReplicas(), targetUsage, resource, ctx.tolerances(), listPods(ctx), fetched, ctx.now()));
        MetricValueStatus value = new MetricValueStatus(null, Quantities.decimal(p.usage()), null);
        return new Evaluated(proposal(type, resource, resource + " resource", "AverageValue", targetUsage / 1000.0, p.usage() / 1000.0,
                timestampOf(fetched), p), resourceStatus(type, resource, container, value));
    }

    private Evaluated resourceUtilization(Context ctx, String type, int targetUtilization, String resource, String container, String outer)
            throws MetricError {
        String failed = "failed to get " + resource + " utilization: ";
        Map<String, PodMetric> fetched = fetchResource(ctx, resource, container, outer, failed);
        Proposal p = calculated(outer, failed, () -> calculator.utilization(ctx.specReplicas(), targetUtilization, resource, container,
                ctx.tolerances(), listPods(ctx), fetched, ctx.now()));
        MetricValueStatus value = new MetricValueStatus(p.utilization(), Quantities.decimal(p.usage()), null);
        String metric = resource + (container.isEmpty() ? "" : " container") + " resource utilization (percentage of request)";
        return new Evaluated(proposal(type, resource, metric, "Utilization", targetUtilization, p.utilization(), timestampOf(fetched), p),
                resourceStatus(type, resource, container, value));
    }

    private static MetricStatus resourceStatus(String type, String resource, String container, MetricValueStatus value) {
        MetricStatus status = new MetricStatus();
        status.setType(type);
        if (container.isEmpty()) {
            status.setResource(new ResourceMetricStatus(value, resource));
        } else {
            status.setContainerResource(new ContainerResourceMetricStatus(container, value, resource));
        }
        return status;
    }

    /** The per-pod samples of a resource; a failure names what was being computed ({@code failed}). */
    private Map<String, PodMetric> fetchResource(Context ctx, String resource, String container, String outer, String failed)
            throws MetricError {
        List<PodUsage> usage;
        try {
            usage = metrics.podUsage(ctx.namespace(), ctx.podSelector(), resource);
        } catch (ApiException e) {
            throw MetricError.failed(outer, failed + "unable to get metrics for resource " + resource + ": " + e.getMessage());
        }
        if (usage.isEmpty()) {
            throw MetricError.failed(outer, failed + "unable to get metrics for resource " + resource + ": no metrics returned from resource metrics API");
        }
        return calculated(outer, failed, () -> ResourceUsage.perPod(usage, resource, container));
    }

    // ---- Pods ----

    private Evaluated pods(Context ctx, PodsMetricSource source, FieldPath at) throws MetricError {
        final String outer = "failed to get pods metric value: ";
        if (source == null || source.getMetric() == null || isBlank(source.getMetric().getName())) {
            throw MetricError.spec(outer, "invalid pods metric source: the metric name is not set");
        }
        checkMetricName(source.getMetric(), at.child("metric"), "pods", outer);
        if (source.getTarget() == null || source.getTarget().getAverageValue() == null) {
            throw MetricError.spec(outer, "invalid pods metric source: an average value target must be set");
        }
        long target = positiveMilli(source.getTarget().getAverageValue(), at.child("target").child("averageValue"), outer);
        Selector metricSelector = metricSelector(source.getMetric(), outer);
        String name = source.getMetric().getName();
        Map<String, PodMetric> samples;
        try {
            samples = metrics.podsMetric(ctx.namespace(), name, ctx.podSelector(), metricSelector);
        } catch (ApiException e) {
            throw MetricError.failed(outer, "unable to get metric " + name + ": " + e.getMessage());
        }
        if (samples.isEmpty()) {
            throw MetricError.failed(outer, "unable to get metric " + name + ": no metrics returned from custom metrics API");
        }
        Proposal p = calculated(outer, "", () -> calculator.averageValue(ctx.specReplicas(), target, "", ctx.tolerances(), listPods(ctx), samples, ctx.now()));
        MetricStatus status = new MetricStatus();
        status.setType("Pods");
        status.setPods(new PodsMetricStatus(new MetricValueStatus(null, Quantities.decimal(p.usage()), null), identifier(source.getMetric())));
        return new Evaluated(proposal("Pods", name, "pods metric " + name, "AverageValue", target / 1000.0, p.usage() / 1000.0,
                timestampOf(samples), p), status);
    }

    // ---- Object ----

    private Evaluated object(Context ctx, ObjectMetricSource source, FieldPath at) throws MetricError {
        final String outer = "failed to get object metric value: ";
        if (source == null || source.getMetric() == null || isBlank(source.getMetric().getName())) {
            throw MetricError.spec(outer, "invalid object metric source: the metric name is not set");
        }
        checkMetricName(source.getMetric(), at.child("metric"), "object", outer);
        Selector metricSelector = metricSelector(source.getMetric(), outer);
        CrossVersionObjectReference ref = describedObject(source, at, outer);
        MetricTarget target = source.getTarget();
        boolean value = target != null && "Value".equals(target.getType()) && target.getValue() != null;
        boolean average = target != null && "AverageValue".equals(target.getType()) && target.getAverageValue() != null;
        if (!value && !average) {
            throw MetricError.spec(outer, "invalid object metric source: neither a value target nor an average value target was set");
        }
        long targetMilli = positiveMilli(value ? target.getValue() : target.getAverageValue(), at.child("target").child(value ? "value" : "averageValue"), outer);
        String name = source.getMetric().getName();
        // upstream wraps an AverageValue failure once more than a Value one
        String wrap = outer + (value ? "" : "failed to get " + name + " object metric: ");
        MetricsSource.ObjectMetricValue sample;
        try {
            sample = metrics.objectMetric(ctx.namespace(), name, ref, metricSelector);
        } catch (ApiException e) {
            // upstream's format string, its argument order included: the kind lands after the metric name
            // and the error after the object ("unable to get metric rps: Ingress on shop web/<error>")
            throw MetricError.failed(wrap, "unable to get metric " + name + ": " + ref.getKind() + " on " + ctx.namespace() + " "
                    + ref.getName() + "/" + e.getMessage());
        }
        Proposal p = totalProposal(ctx, !value, targetMilli, sample.value(), wrap);
        MetricStatus status = new MetricStatus();
        status.setType("Object");
        // both targets name the described object, as upstream since v1.33 (kubernetes/kubernetes#124555; before it an
        // AverageValue entry held Go's zero reference, {"kind":"","name":""})
        status.setObject(new ObjectMetricStatus(totalStatus(!value, p.usage()), ref, identifier(source.getMetric())));
        // as upstream, an AverageValue Object metric is described as an external one
        String description = value ? ref.getKind() + " metric " + name : "external metric " + name + "(" + selectorText(source.getMetric()) + ")";
        return new Evaluated(proposal("Object", name, description, value ? "Value" : "AverageValue",
                targetMilli / 1000.0, p.usage() / 1000.0, sample.timestamp(), p), status);
    }

    /** The object an Object metric describes, refused when it names no kind and object or would leave its namespace. */
    private static CrossVersionObjectReference describedObject(ObjectMetricSource source, FieldPath at, String outer) throws MetricError {
        CrossVersionObjectReference ref = source.getDescribedObject();
        if (ref == null || isBlank(ref.getKind()) || isBlank(ref.getName())) {
            throw MetricError.spec(outer, "invalid object metric source: describedObject must name a kind and an object");
        }
        String badRef = SpecChecks.checkReference(ref, at.child("describedObject"));
        if (badRef != null) {
            throw MetricError.spec(outer, "invalid object metric source: " + badRef);
        }
        return ref;
    }

    // ---- External ----

    private Evaluated external(Context ctx, ExternalMetricSource source, FieldPath at) throws MetricError {
        String name = source == null || source.getMetric() == null || source.getMetric().getName() == null ? "" : source.getMetric().getName();
        final String outer = "failed to get " + name + " external metric value: ";
        if (name.isEmpty()) {
            throw MetricError.spec(outer, "invalid external metric source: the metric name is not set");
        }
        checkMetricName(source.getMetric(), at.child("metric"), "external", outer);
        MetricTarget target = source.getTarget();
        boolean average = target != null && target.getAverageValue() != null;
        boolean value = target != null && !average && target.getValue() != null;
        if (!value && !average) {
            throw MetricError.spec(outer, "invalid external metric source: neither a value target nor an average value target was set");
        }
        long targetMilli = positiveMilli(average ? target.getAverageValue() : target.getValue(),
                at.child("target").child(average ? "averageValue" : "value"), outer);
        // upstream's calculator converts the selector and fetches, and its caller wraps what failed there twice
        String wrap = outer + (average ? "failed to get " + name + " external metric: " : "failed to get external metric " + name + ": ");
        Selector metricSelector = metricSelector(source.getMetric(), wrap);
        String fetching = "unable to get external metric " + ctx.namespace() + "/" + name + "/" + selectorText(source.getMetric()) + ": ";
        MetricsSource.ExternalMetricValues sample;
        try {
            sample = metrics.externalMetric(ctx.namespace(), name, metricSelector);
        } catch (ApiException e) {
            throw MetricError.failed(wrap, fetching + e.getMessage());
        }
        if (sample.values().isEmpty()) {
            throw MetricError.failed(wrap, fetching + "no metrics returned from external metrics API");
        }
        Proposal p = totalProposal(ctx, average, targetMilli, sum(sample.values(), wrap), wrap);
        MetricStatus status = new MetricStatus();
        status.setType("External");
        status.setExternal(new ExternalMetricStatus(totalStatus(average, p.usage()), identifier(source.getMetric())));
        return new Evaluated(proposal("External", name, "external metric " + name + "(" + selectorText(source.getMetric()) + ")",
                average ? "AverageValue" : "Value", targetMilli / 1000.0, p.usage() / 1000.0, sample.timestamp(), p), status);
    }

    // ---- helpers ----

    /** A step of upstream's calculator; its failure reads as upstream's error after {@code failed}, named by {@code outer}. */
    @FunctionalInterface
    private interface Calculation<T> {
        T run() throws CalculationException;
    }

    private static <T> T calculated(String outer, String failed, Calculation<T> step) throws MetricError {
        try {
            return step.run();
        } catch (CalculationException e) {
            throw MetricError.failed(outer, failed + e.getMessage());
        }
    }

    /** The sum of an external metric's values, failing as upstream's calculator does when it overflows. */
    private static long sum(List<Long> values, String wrap) throws MetricError {
        return calculated(wrap, "", () -> ReplicaCalculator.sum(values));
    }

    /**
     * An Object or External metric's total against its target: a Value target is the whole total over the
     * ready pods, an AverageValue target the total divided over status.replicas.
     */
    private Proposal totalProposal(Context ctx, boolean average, long target, long total, String outer) throws MetricError {
        return calculated(outer, "", () -> average
                ? calculator.averageOverReplicas(ctx.statusReplicas(), target, total, ctx.tolerances())
                : calculator.value(ctx.specReplicas(), target, total, ctx.tolerances(), () -> listPods(ctx)));
    }

    /** The current value of an Object or External metric as status.currentMetrics reports it. */
    private static MetricValueStatus totalStatus(boolean average, long usage) {
        return average ? new MetricValueStatus(null, Quantities.decimal(usage), null) : new MetricValueStatus(null, null, Quantities.decimal(usage));
    }

    private List<PodInfo> listPods(Context ctx) {
        return pods.list(ctx.namespace(), ctx.podSelector());
    }

    /**
     * A target's milli-value; a quantity that is malformed or beyond {@link Quantities#outOfBounds} (checked on its text,
     * before any arithmetic) is an invalid spec, named by its field path.
     */
    private static long positiveMilli(Quantity q, FieldPath field, String outer) throws MetricError {
        long milli;
        try {
            milli = Quantities.milliValue(q);
        } catch (IllegalArgumentException e) {
            throw MetricError.spec(outer, "invalid metric target: " + field + ": " + e.getMessage());
        }
        if (milli <= 0) {
            throw MetricError.spec(outer, "invalid metric target: " + field + " must be positive, got " + q);
        }
        return milli;
    }

    /**
     * A metric name the API server's validation refuses ({@code validateMetricIdentifier}: {@code .}, {@code ..}, a
     * {@code /} or a {@code %}) is a spec error, found before any request: such a name would change the request's path.
     */
    private static void checkMetricName(MetricIdentifier metric, FieldPath at, String source, String outer) throws MetricError {
        List<FieldError> invalid = HpaValidation.validateMetricName(metric, at);
        if (!invalid.isEmpty()) {
            throw MetricError.spec(outer, "invalid " + source + " metric source: "
                    + invalid.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        }
    }

    private static Selector metricSelector(MetricIdentifier metric, String outer) throws MetricError {
        if (metric.getSelector() == null) {
            return Selector.everything();
        }
        try {
            return Selector.fromLabelSelector(metric.getSelector());
        } catch (IllegalArgumentException e) {
            throw MetricError.spec(outer, e.getMessage());  // upstream's LabelSelectorAsSelector error, as it is
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

    private static long timestampOf(Map<String, PodMetric> samples) {
        for (PodMetric m : samples.values()) {
            return m.timestamp();
        }
        return 0;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isEmpty();
    }
}
