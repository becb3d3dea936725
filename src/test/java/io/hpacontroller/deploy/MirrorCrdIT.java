package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mirror API on a real kube-apiserver (v1.26.1): the shipped CRD installs, refuses what autoscaling/v2
 * refuses (each invalid spec is tried as both kinds), and {@code kubectl get xhpa} prints the columns of
 * {@code kubectl get hpa}.
 */
@RealKube
class MirrorCrdIT {

    private static final String VALID = """
            scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
            minReplicas: 1
            maxReplicas: 4
            metrics:
            - type: Resource
              resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
            behavior:
              scaleDown:
                stabilizationWindowSeconds: 60
                policies: [{type: Percent, value: 50, periodSeconds: 30}]
            """;

    /** Specs autoscaling/v2 refuses, by what is wrong with them. */
    private static final Map<String, String> INVALID = new LinkedHashMap<>();

    static {
        INVALID.put("no maxReplicas", "scaleTargetRef: {kind: Deployment, name: web}");
        INVALID.put("no scaleTargetRef", "maxReplicas: 3");
        INVALID.put("scaleTargetRef without a name", "scaleTargetRef: {kind: Deployment, name: ''}\nmaxReplicas: 3");
        INVALID.put("maxReplicas 0", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 0");
        INVALID.put("minReplicas above maxReplicas", "scaleTargetRef: {kind: Deployment, name: web}\nminReplicas: 5\nmaxReplicas: 3");
        INVALID.put("maxReplicas a string", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: three");
        INVALID.put("minReplicas 0 without an Object or External metric", "scaleTargetRef: {kind: Deployment, name: web}\nminReplicas: 0\nmaxReplicas: 3");
        INVALID.put("an unknown metric type", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\nmetrics: [{type: Cpu}]");
        INVALID.put("a metric type without its source", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\nmetrics: [{type: Pods}]");
        INVALID.put("two metric sources", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics:
                - type: Resource
                  resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                  pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "10"}}
                """);
        INVALID.put("a target type misspelled", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilisation, averageUtilization: 50}}}]
                """);
        INVALID.put("averageUtilization 0", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 0}}}]
                """);
        INVALID.put("a resource metric without a target value", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization}}}]
                """);
        INVALID.put("a pods metric without averageValue", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Pods, pods: {metric: {name: rps}, target: {type: Value, value: "10"}}}]
                """);
        INVALID.put("an external metric with both value and averageValue", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: External, external: {metric: {name: queue}, target: {type: Value, value: "10", averageValue: "2"}}}]
                """);
        INVALID.put("a quantity that does not parse", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "ten"}}}]
                """);
        INVALID.put("a stabilization window over an hour", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\n"
                + "behavior: {scaleDown: {stabilizationWindowSeconds: 3601}}");
        INVALID.put("an unknown selectPolicy", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\n"
                + "behavior: {scaleUp: {selectPolicy: Maximum}}");
        INVALID.put("a policy period of 0", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\n"
                + "behavior: {scaleUp: {policies: [{type: Pods, value: 4, periodSeconds: 0}]}}");
        INVALID.put("a policy of an unknown type", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\n"
                + "behavior: {scaleUp: {policies: [{type: Percentage, value: 4, periodSeconds: 15}]}}");
        INVALID.put("no policies", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\n"
                + "behavior: {scaleUp: {policies: []}}");
        // names that are no path segment (issue 35: they reached the API server as paths out of the namespace)
        INVALID.put("a target name that climbs out of the namespace", "scaleTargetRef: {kind: Deployment, name: ../../victim/deployments/web}\nmaxReplicas: 3");
        INVALID.put("a target name with an encoded slash", "scaleTargetRef: {kind: Deployment, name: a%2Fb}\nmaxReplicas: 3");
        INVALID.put("a target named ..", "scaleTargetRef: {kind: Deployment, name: '..'}\nmaxReplicas: 3");
        INVALID.put("a target named .", "scaleTargetRef: {kind: Deployment, name: '.'}\nmaxReplicas: 3");
        INVALID.put("a target kind with a slash", "scaleTargetRef: {kind: deployments/web, name: x}\nmaxReplicas: 3");
        INVALID.put("a Pods metric name with a slash", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Pods, pods: {metric: {name: ../../victim/pods/*/rps}, target: {type: AverageValue, averageValue: "10"}}}]
                """);
        INVALID.put("an External metric name with a percent", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: External, external: {metric: {name: "queue%2F"}, target: {type: Value, value: "10"}}}]
                """);
        INVALID.put("a describedObject name with a slash", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Object, object: {describedObject: {kind: Service, name: a/b}, metric: {name: rps}, target: {type: Value, value: "10"}}}]
                """);
        // quantities that are not positive (upstream: Sign() != 1)
        INVALID.put("averageValue 0", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "0"}}}]
                """);
        INVALID.put("averageValue -1 as a number", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: -1}}}]
                """);
        INVALID.put("averageValue 0.0Ki", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 0.0Ki}}}]
                """);
        INVALID.put("value 0 as a number", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: Object, object: {describedObject: {kind: Service, name: web}, metric: {name: rps}, target: {type: Value, value: 0}}}]
                """);
        INVALID.put("a negative External averageValue", """
                scaleTargetRef: {kind: Deployment, name: web}
                maxReplicas: 3
                metrics: [{type: External, external: {metric: {name: queue}, target: {type: AverageValue, averageValue: "-500m"}}}]
                """);
    }

    /** Specs autoscaling/v2 (v1.26) takes and the mirror refuses: the differences docs/differences-from-upstream.md lists. */
    private static final Map<String, String> MIRROR_ONLY_INVALID = Map.of(
            "a metric name with a newline", """
                    scaleTargetRef: {kind: Deployment, name: web}
                    maxReplicas: 3
                    metrics: [{type: Pods, pods: {metric: {name: "rps\\nx"}, target: {type: AverageValue, averageValue: "10"}}}]
                    """,
            "a negative tolerance", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3\nbehavior: {scaleUp: {tolerance: \"-0.1\"}}");

    /** Odd specs both take: names a path segment can carry (the controller encodes them), quantities that are positive. */
    private static final String ODD_BUT_VALID = """
            scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: "web?x="}
            maxReplicas: 3
            metrics:
            - type: Pods
              pods: {metric: {name: "rps?x=1#y z"}, target: {type: AverageValue, averageValue: 1n}}
            - type: External
              external: {metric: {name: "...:queue"}, target: {type: Value, value: 3}}
            - type: Object
              object: {describedObject: {kind: Service, name: "web.."}, metric: {name: rps}, target: {type: AverageValue, averageValue: "+0.5e-3"}}
            """;

    @Test
    void theVendoredAutoscalingV2SchemaIsWhatKubeApiserverServes(KubeControlPlane kube) {
        var served = AutoscalingV2Schema.extract(AutoscalingV2Schema.parse(kube.adminClient().raw("/openapi/v3/apis/autoscaling/v2")));
        if (Boolean.getBoolean("openapi.capture")) {
            AutoscalingV2Schema.writeVendored(served);
        }
        assertThat(served).isEqualTo(AutoscalingV2Schema.vendored());
    }

    @Test
    void whatAutoscalingV2RefusesTheMirrorRefusesAndWhatItTakesTheMirrorTakes(KubeControlPlane kube, TestNamespace ns) {
        MirrorCrd.install(kube);
        KubernetesClient admin = kube.adminClient();

        for (HpaApi api : HpaApi.values()) {
            create(admin, api, ns, "valid-" + api.ordinal(), VALID);
        }
        List<String> wrong = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, String> invalid : INVALID.entrySet()) {
            i++;
            for (HpaApi api : HpaApi.values()) {
                try {
                    create(admin, api, ns, "invalid-" + i + "-" + api.ordinal(), invalid.getValue());
                    wrong.add(api.apiVersion() + " took " + invalid.getKey());
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 422 && e.getCode() != 400) { // 400: autoscaling/v2 could not decode it
                        wrong.add(api.apiVersion() + " answered " + e.getCode() + " for " + invalid.getKey() + ": " + e.getMessage());
                    }
                }
            }
        }
        for (Map.Entry<String, String> invalid : MIRROR_ONLY_INVALID.entrySet()) {
            i++;
            try {
                create(admin, HpaApi.MIRROR, ns, "invalid-" + i, invalid.getValue());
                wrong.add("the mirror took " + invalid.getKey());
            } catch (KubernetesClientException e) {
                if (e.getCode() != 422) {
                    wrong.add("the mirror answered " + e.getCode() + " for " + invalid.getKey() + ": " + e.getMessage());
                }
            }
        }
        for (HpaApi api : HpaApi.values()) {
            create(admin, api, ns, "odd-" + api.ordinal(), ODD_BUT_VALID);
        }
        assertThat(wrong).isEmpty();
        // the defaults autoscaling/v2 applies, the mirror's schema applies too
        var mirror = create(admin, HpaApi.MIRROR, ns, "defaulted", "scaleTargetRef: {kind: Deployment, name: web}\nmaxReplicas: 3");
        assertThat(kube.kubectl("get", "xhpa", "defaulted", "-n", ns.name(), "-o", "jsonpath={.spec.minReplicas} {.spec.metrics}"))
                .isEqualTo("1 [{\"resource\":{\"name\":\"cpu\",\"target\":{\"averageUtilization\":80,\"type\":\"Utilization\"}},\"type\":\"Resource\"}]");
        assertThat(mirror.getMetadata().getName()).isEqualTo("defaulted");
    }

    /** Both name the field and the value; autoscaling/v2 says why in upstream's words, the mirror gives its pattern. */
    @Test
    void aRefusedNameNamesItsField(KubeControlPlane kube, TestNamespace ns) {
        MirrorCrd.install(kube);
        for (HpaApi api : HpaApi.values()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> create(kube.adminClient(), api, ns, "traversal-" + api.ordinal(),
                            "scaleTargetRef: {kind: Deployment, name: ../../victim/deployments/web}\nmaxReplicas: 3"))
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("spec.scaleTargetRef.name: Invalid value: \"../../victim/deployments/web\": ")
                    .hasMessageContaining(api == HpaApi.BUILTIN ? "may not contain '/'" : "should match '" + MirrorCrdRules.PATH_SEGMENT_NAME + "'");
        }
    }

    @Test
    void kubectlGetXhpaPrintsTheColumnsOfKubectlGetHpa(KubeControlPlane kube, TestNamespace ns) {
        MirrorCrd.install(kube);
        KubernetesClient admin = kube.adminClient();
        create(admin, HpaApi.MIRROR, ns, "web", VALID);
        admin.genericKubernetesResources(MirrorCrd.CONTEXT).inNamespace(ns.name()).withName("web")
                .editStatus(h -> {
                    h.setAdditionalProperty("status", Map.of("currentReplicas", 2, "desiredReplicas", 2,
                            "reference", "Deployment/web", "targets", "cpu: 20%/50%"));
                    return h;
                });

        List<String> lines = kube.kubectl("get", "xhpa", "-n", ns.name()).lines().map(l -> l.replaceAll("\\s+", " ").strip()).toList();

        assertThat(lines.get(0)).isEqualTo("NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE");
        assertThat(lines.get(1)).matches("web Deployment/web cpu: 20%/50% 1 4 2 \\d+s");
        assertThat(kube.kubectl("get", "all", "-n", ns.name())).contains("horizontalpodautoscaler.autoscaling.hpa-controller.io/web");
    }

    private static GenericKubernetesResource create(KubernetesClient admin, HpaApi api, TestNamespace ns, String name, String specYaml) {
        GenericKubernetesResource hpa = Serialization.unmarshal(hpa(api, ns, name, specYaml), GenericKubernetesResource.class);
        var resources = api == HpaApi.MIRROR ? admin.genericKubernetesResources(MirrorCrd.CONTEXT)
                : admin.genericKubernetesResources(api.apiVersion(), "HorizontalPodAutoscaler");
        return resources.inNamespace(ns.name()).resource(hpa).create();
    }

    private static String hpa(HpaApi api, TestNamespace ns, String name, String specYaml) {
        return "apiVersion: " + api.apiVersion() + "\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name + "\n  namespace: " + ns.name()
                + "\nspec:\n" + specYaml.indent(2);
    }
}
