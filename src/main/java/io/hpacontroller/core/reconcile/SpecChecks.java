package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.hpacontroller.core.validation.FieldError;
import io.hpacontroller.core.validation.FieldPath;
import io.hpacontroller.core.validation.HpaValidation;
import io.hpacontroller.core.validation.NameSyntax;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the API server's validation would have refused about an HPA's spec (an object from an older API
 * version, or written around validation), the defaults it would have filled in, and the status shapes a sync
 * starts from.
 */
final class SpecChecks {

    private SpecChecks() {
    }

    /** Why the scaleTargetRef cannot name a scale (no kind or name, an apiVersion that is no group/version), or null. */
    static String checkScaleTargetRef(CrossVersionObjectReference ref) {
        if (ref == null || isBlank(ref.getKind()) || isBlank(ref.getName())) {
            return "the HPA has no scaleTargetRef with a kind and a name";
        }
        return checkReference(ref, FieldPath.of("spec").child("scaleTargetRef"));
    }

    /**
     * Why a reference with a kind and a name cannot go into a request path, or null: a kind or a name the API server's
     * validation refuses ({@code ValidateCrossVersionObjectReference}: not {@code .} or {@code ..}, no {@code /}, no
     * {@code %}), or an apiVersion that is no group/version, or whose group or version is no valid path segment. Checked
     * before any request: a name that climbs out of the HPA's namespace ({@code ../../other/deployments/web}) is never sent.
     */
    static String checkReference(CrossVersionObjectReference ref, FieldPath path) {
        List<FieldError> invalid = HpaValidation.validateReference(ref, path);
        if (!invalid.isEmpty()) {
            return invalid.stream().map(FieldError::toString).collect(Collectors.joining("; "));
        }
        return checkApiVersion(ref.getApiVersion(), path.child("apiVersion"));
    }

    /**
     * What the API server's validation would have refused about minReplicas and maxReplicas, or null when they are
     * usable. minReplicas 0 is accepted: it is valid with the HPAScaleToZero gate, and harmless without it.
     */
    static String checkReplicaBounds(Integer minReplicas, Integer maxReplicas) {
        if (maxReplicas == null) {
            return "spec.maxReplicas is required";
        }
        if (maxReplicas < 1) {
            return "spec.maxReplicas must be at least 1, got " + maxReplicas;
        }
        if (minReplicas != null && minReplicas < 0) {
            return "spec.minReplicas must not be negative, got " + minReplicas;
        }
        if (minReplicas != null && minReplicas > maxReplicas) {
            return "spec.minReplicas (" + minReplicas + ") must not be greater than spec.maxReplicas (" + maxReplicas + ")";
        }
        return null;
    }

    /** Returns an error message when a reference's apiVersion does not parse as a group/version, or cannot be a path. */
    private static String checkApiVersion(String apiVersion, FieldPath path) {
        if (apiVersion == null || apiVersion.isEmpty()) {
            return null; // the core group, "v1"
        }
        String[] parts = apiVersion.split("/", -1);
        if (parts.length > 2 || Arrays.stream(parts).anyMatch(String::isEmpty)) {
            return "unexpected GroupVersion string: " + apiVersion;
        }
        List<String> problems = Arrays.stream(parts).flatMap(p -> NameSyntax.pathSegmentName(p).stream()).toList();
        return problems.isEmpty() ? null : FieldError.invalid(path, apiVersion, "a group or a version " + String.join(", ", problems)).toString();
    }

    /** The API server fills an empty metrics list with 80% average CPU utilization. */
    static List<MetricSpec> defaultMetrics() {
        return List.of(new MetricSpecBuilder()
                .withType("Resource")
                .withNewResource().withName("cpu").withNewTarget().withType("Utilization").withAverageUtilization(80).endTarget().endResource()
                .build());
    }

    static HorizontalPodAutoscalerStatus copyOf(HorizontalPodAutoscalerStatus s) {
        HorizontalPodAutoscalerStatus c = new HorizontalPodAutoscalerStatus();
        c.setCurrentReplicas(s.getCurrentReplicas());
        c.setDesiredReplicas(s.getDesiredReplicas());
        c.setLastScaleTime(s.getLastScaleTime());
        c.setCurrentMetrics(s.getCurrentMetrics() == null ? null : new ArrayList<>(s.getCurrentMetrics()));
        c.setConditions(s.getConditions());
        c.setObservedGeneration(s.getObservedGeneration());
        return c;
    }

    static String formatTime(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static boolean isBlank(String s) {
        return s == null || s.isEmpty();
    }
}
