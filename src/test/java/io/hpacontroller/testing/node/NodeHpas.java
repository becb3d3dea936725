package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.MirrorHpa;

import java.util.Comparator;
import java.util.List;

/** HPAs of either API on the real node, written as users write them (YAML), read back as autoscaling/v2 objects. */
public final class NodeHpas {

    private NodeHpas() {
    }

    /** Creates the HPA whose manifest is {@code yaml} (without apiVersion and kind) in the namespace, of that API. */
    public static void create(KubernetesClient admin, HpaApi api, String namespace, String yaml) {
        GenericKubernetesResource hpa = Serialization.unmarshal("apiVersion: " + api.apiVersion() + "\nkind: HorizontalPodAutoscaler\n" + yaml,
                GenericKubernetesResource.class);
        hpa.getMetadata().setNamespace(namespace);
        admin.genericKubernetesResources(context(api)).inNamespace(namespace).resource(hpa).create();
    }

    private static ResourceDefinitionContext context(HpaApi api) {
        return new ResourceDefinitionContext.Builder().withGroup(api.group()).withVersion(api.version()).withKind("HorizontalPodAutoscaler")
                .withPlural(api.plural()).withNamespaced(true).build();
    }

    /** The HPA as an autoscaling/v2 object, or null. */
    public static HorizontalPodAutoscaler read(KubernetesClient admin, HpaApi api, String namespace, String name) {
        if (api == HpaApi.MIRROR) {
            MirrorHpa m = admin.resources(MirrorHpa.class).inNamespace(namespace).withName(name).get();
            return m == null ? null : m.toCore();
        }
        return admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(namespace).withName(name).get();
    }

    /** An HPA of the Deployment of the same name: CPU at 50 % of the request, {@code min} to {@code max} replicas, a scale-down window. */
    public static String cpuHpa(String name, int min, int max, int scaleDownWindowSeconds) {
        return """
                metadata: {name: %s}
                spec:
                  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %s}
                  minReplicas: %d
                  maxReplicas: %d
                  metrics:
                  - type: Resource
                    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                  behavior:
                    scaleDown: {stabilizationWindowSeconds: %d}
                """.formatted(name, name, min, max, scaleDownWindowSeconds);
    }

    /** "STATUS Reason" of the condition, or null. */
    public static String condition(HorizontalPodAutoscaler hpa, String type) {
        if (hpa == null || hpa.getStatus() == null || hpa.getStatus().getConditions() == null) {
            return null;
        }
        return hpa.getStatus().getConditions().stream().filter(c -> c.getType().equals(type))
                .map((HorizontalPodAutoscalerCondition c) -> c.getStatus() + " " + c.getReason()).findFirst().orElse(null);
    }

    /** The HPA's conditions, one line each. */
    public static String conditions(HorizontalPodAutoscaler hpa) {
        if (hpa == null || hpa.getStatus() == null || hpa.getStatus().getConditions() == null) {
            return "(no status)";
        }
        return String.join("; ", hpa.getStatus().getConditions().stream()
                .map(c -> c.getType() + "=" + c.getStatus() + " " + c.getReason() + ": " + c.getMessage()).toList());
    }

    /** status.currentMetrics in short: "cpu 75% (75m)" for each metric. */
    public static String currentMetrics(HorizontalPodAutoscaler hpa) {
        if (hpa.getStatus().getCurrentMetrics() == null) {
            return "[]";
        }
        return hpa.getStatus().getCurrentMetrics().stream().map(m -> {
            if (m.getResource() != null && m.getResource().getCurrent() != null) {
                var c = m.getResource().getCurrent();
                return m.getResource().getName() + " " + c.getAverageUtilization() + "% (" + c.getAverageValue() + ")";
            }
            return m.getType();
        }).toList().toString();
    }

    /** The events about HPAs of this name in the namespace, oldest first: "Type Reason message". */
    public static List<String> events(KubernetesClient admin, String namespace, String name) {
        return admin.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> "HorizontalPodAutoscaler".equals(e.getInvolvedObject().getKind()) && name.equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparing((Event e) -> e.getLastTimestamp() == null ? "" : e.getLastTimestamp()))
                .map(e -> e.getType() + " " + e.getReason() + " " + e.getMessage()).toList();
    }
}
