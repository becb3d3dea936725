package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * charts/hpa-controller/values.schema.json through a real Helm: a typo or a wrong type is refused at
 * install (and template, lint), naming the value, instead of rendering a pod that crash-loops.
 */
class ValuesSchemaTest {

    private static final Path SCHEMA = HelmChart.CHART_DIR.resolve("values.schema.json");

    @Test
    void anUnknownKeyIsRefusedNamingIt() {
        assertThatThrownBy(() -> HelmChart.render(Map.of("shaddow", true)))
                .hasMessageContaining("values don't meet the specifications of the schema").hasMessageContaining("shaddow");
        assertThatThrownBy(() -> HelmChart.render(Map.of("hpa.syncPeriods", "30s"))).hasMessageContaining("syncPeriods");
        assertThatThrownBy(() -> HelmChart.render(Map.of("metrics.serviceMonitor.enable", true))).hasMessageContaining("enable");
        assertThatThrownBy(() -> HelmChart.render(Map.of("featureGates.HPAScaleToZer0", false)))
                .as("kube-controller-manager refuses a gate it does not know, and so would the pod").hasMessageContaining("HPAScaleToZer0");
    }

    @Test
    void aWrongTypeOrFormIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> HelmChart.render(Map.of("hpa.syncPeriod", "fast"))).hasMessageContaining("/hpa/syncPeriod");
        assertThatThrownBy(() -> HelmChart.render(Map.of("hpa.syncPeriod", "0s"))).as("run refuses a zero period")
                .hasMessageContaining("/hpa/syncPeriod");
        assertThatThrownBy(() -> HelmChart.render(Map.of("hpa.downscaleStabilization", "-5m")))
                .hasMessageContaining("/hpa/downscaleStabilization");
        assertThatThrownBy(() -> HelmChart.render(Map.of("hpa.tolerance", "a tenth"))).hasMessageContaining("/hpa/tolerance");
        assertThatThrownBy(() -> HelmChart.render(Map.of("hpa.concurrentSyncs", 0))).hasMessageContaining("/hpa/concurrentSyncs");
        assertThatThrownBy(() -> HelmChart.render(Map.of("metrics.port", 80800))).hasMessageContaining("/metrics/port");
        assertThatThrownBy(() -> HelmChart.render(Map.of("health.port", "health"))).hasMessageContaining("/health/port");
        assertThatThrownBy(() -> HelmChart.render(Map.of("replicaCount", "two"))).hasMessageContaining("/replicaCount");
        assertThatThrownBy(() -> HelmChart.render(Map.of("shadow", "yes"))).hasMessageContaining("/shadow");
        assertThatThrownBy(() -> HelmChart.render(Map.of("logFormat", "xml"))).hasMessageContaining("/logFormat");
        assertThatThrownBy(() -> HelmChart.render(Map.of("leaderElection.leaseDuration", "15"))).hasMessageContaining("/leaderElection/leaseDuration");
        assertThatThrownBy(() -> HelmChart.render("watchNamespaces: [Shop]")).hasMessageContaining("/watchNamespaces/0");
        assertThatThrownBy(() -> HelmChart.render(Map.of("extraArgs", "--log-format=json")))
                .as("a string where a list belongs").hasMessageContaining("/extraArgs");
        assertThatThrownBy(() -> HelmChart.render(Map.of("podAnnotations.replicas", 3))).hasMessageContaining("/podAnnotations/replicas");
    }

    /** The values.yaml defaults, its commented examples and the README's: none is refused. */
    @Test
    void everyDocumentedValuePasses() {
        assertThat(HelmChart.renderDefaults().single(Deployment.class)).isNotNull();

        Deployment everyValueSet = HelmChart.render("""
                image: {repository: registry.example.com/hpa-controller, tag: "0.1.0", pullPolicy: Always}
                imagePullSecrets: [{name: registry}]
                replicaCount: 3
                nameOverride: autoscaler
                fullnameOverride: autoscaler
                takeOverBuiltinHpas: false
                shadow: true
                persistHistory: false
                watchNamespaces: [shop, payments]
                hpa: {syncPeriod: 1m30s, tolerance: 0.05, downscaleStabilization: "0", cpuInitializationPeriod: 2m,
                      initialReadinessDelay: 250ms, concurrentSyncs: 20}
                featureGates: {HPAScaleToZero: false, HPAConfigurableTolerance: true}
                leaderElection: {enabled: true, leaseDuration: 30s, renewDeadline: 20s, retryPeriod: 4s,
                                 resourceName: hpa-controller.example.com, resourceNamespace: kube-system}
                logFormat: json
                extraArgs: [--horizontal-pod-autoscaler-sync-period=30s]
                jvmOptions: ""
                serviceAccount: {create: false, name: autoscaler, annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::1:role/x"}}
                rbac: {create: true, extraScaleTargets: [{apiGroup: example.com, resources: [widgets]}]}
                metrics:
                  port: 9090
                  service: {type: NodePort, annotations: {prometheus.io/scrape: "true"}}
                  serviceMonitor: {enabled: true, interval: 1m, scrapeTimeout: 10s, labels: {release: kube-prometheus-stack}}
                  prometheusRule: {enabled: true, labels: {release: kube-prometheus-stack}}
                  grafanaDashboard: {enabled: true, namespace: monitoring, labels: {team: platform}, annotations: {grafana_folder: Kubernetes}}
                health: {port: 9091}
                livenessProbe: {httpGet: {path: /healthz, port: health}, periodSeconds: 20}
                readinessProbe: {httpGet: {path: /readyz, port: health}}
                resources: {requests: {cpu: 200m, memory: 512Mi}, limits: {memory: 512Mi}}
                podSecurityContext: {runAsNonRoot: true}
                securityContext: {readOnlyRootFilesystem: true}
                tmpVolume: {sizeLimit: 128Mi}
                terminationGracePeriodSeconds: 60
                podDisruptionBudget: {enabled: true, minAvailable: 50%}
                podAnnotations: {team: platform}
                podLabels: {team: platform}
                priorityClassName: system-cluster-critical
                nodeSelector: {kubernetes.io/os: linux}
                tolerations: [{key: dedicated, operator: Exists}]
                affinity: {nodeAffinity: {}}
                topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]
                global: {imageRegistry: registry.example.com}
                """).single(Deployment.class);
        assertThat(everyValueSet.getSpec().getReplicas()).isEqualTo(3);
    }

    /** Every key of values.yaml has its schema, and the schema knows no key values.yaml does not document. */
    @Test
    @SuppressWarnings("unchecked")
    void theSchemaDescribesExactlyTheKeysOfValuesYaml() throws Exception {
        Map<String, Object> schema = Manifests.yaml(Files.readString(SCHEMA), Map.class);
        Map<String, Object> values = Manifests.yaml(Files.readString(HelmChart.CHART_DIR.resolve("values.yaml")), Map.class);
        List<String> undescribed = new ArrayList<>();
        List<String> undocumented = new ArrayList<>();

        compare("", values, schema, undescribed, undocumented);

        assertThat(undescribed).as("keys of values.yaml without a property in values.schema.json").isEmpty();
        assertThat(undocumented).as("properties of values.schema.json that values.yaml does not have")
                .containsExactlyInAnyOrder("global", "featureGates.HPAConfigurableTolerance"); // GA and locked on: accepted, as upstream does
    }

    /** Walks the objects the chart owns (additionalProperties: false); free-form maps and Kubernetes objects stop the walk. */
    @SuppressWarnings("unchecked")
    private static void compare(String prefix, Map<String, Object> values, Map<String, Object> schema,
                                List<String> undescribed, List<String> undocumented) {
        assertThat(schema.get("additionalProperties")).as("%s refuses unknown keys", prefix.isEmpty() ? "the root" : prefix).isEqualTo(false);
        Map<String, Object> properties = (Map<String, Object>) schema.get("properties");
        values.forEach((key, value) -> {
            Map<String, Object> property = (Map<String, Object>) properties.get(key);
            if (property == null) {
                undescribed.add(prefix + key);
            } else if (property.containsKey("properties")) {
                compare(prefix + key + ".", (Map<String, Object>) value, property, undescribed, undocumented);
            }
        });
        properties.keySet().stream().filter(k -> !values.containsKey(k)).forEach(k -> undocumented.add(prefix + k));
    }
}
