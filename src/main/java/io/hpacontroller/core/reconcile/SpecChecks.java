package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
        return checkApiVersion(ref.getApiVersion());
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

    /** Returns an error message when the scaleTargetRef's apiVersion does not parse as a group/version. */
    private static String checkApiVersion(String apiVersion) {
        if (apiVersion == null || apiVersion.isEmpty()) {
            return null; // the core group, "v1"
        }
        String[] parts = apiVersion.split("/", -1);
        if (parts.length > 2 || Arrays.stream(parts).anyMatch(String::isEmpty)) {
            return "unexpected GroupVersion string: " + apiVersion;
        }
        return null;
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
