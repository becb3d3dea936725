package io.hpacontroller.deploy;

import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.hpacontroller.bench.Bench;
import io.hpacontroller.conformance.UnknownFields;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

/** charts/hpa-controller through a real Helm: lint, default rendering, and what each value changes. */
class ChartTest {

    /** The controller's command-line contract with the chart's defaults (kube-controller-manager's). */
    private static final List<String> DEFAULT_ARGS = List.of(
            "run",
            "--hpa-apis=autoscaling.hpa-controller.io/v1",
            "--shadow=false",
            "--persist-history=true",
            "--horizontal-pod-autoscaler-sync-period=15s",
            "--horizontal-pod-autoscaler-tolerance=0.1",
            "--horizontal-pod-autoscaler-downscale-stabilization=5m",
            "--horizontal-pod-autoscaler-cpu-initialization-period=5m",
            "--horizontal-pod-autoscaler-initial-readiness-delay=30s",
            "--concurrent-horizontal-pod-autoscaler-syncs=5",
            "--sync-cadence=spread",
            "--fresh-sync-spread=2s",
            "--metrics-max-response-bytes=64Mi",
            "--metrics-max-items=50000",
            "--metrics-request-timeout=10s",
            "--metrics-max-inflight-per-source=2",
            "--feature-gates=HPAScaleToZero=true",
            "--kube-api-qps=-1",
            "--kube-api-burst=30",
            "--leader-elect=true",
            "--sharding=false",
            "--leader-elect-lease-duration=15s",
            "--leader-elect-renew-deadline=10s",
            "--leader-elect-retry-period=2s",
            "--leader-elect-resource-lock=leases",
            "--leader-elect-resource-name=hpa-controller",
            "--leader-elect-resource-namespace=hpa-controller",
            "--metrics-bind-address=:8080",
            "--metrics-secure=true",
            "--health-probe-bind-address=:8081",
            "--log-format=text");

    @Test
    void lintStrictPasses() {
        LintResult lint = HelmChart.lintStrict();

        assertThat(lint.isFailed()).as("%s", lint.getMessages()).isFalse();
        assertThat(lint.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    @Test
    void defaultRenderingIsTheInstallWithoutUnknownFields() {
        Manifests rendered = HelmChart.renderDefaults();

        assertThat(rendered.kindsAndNames()).containsExactlyInAnyOrder(
                "ServiceAccount hpa-controller/hpa-controller",
                "ClusterRole hpa-controller",
                "ClusterRoleBinding hpa-controller",
                "ClusterRole hpa-controller-metrics-auth",
                "ClusterRoleBinding hpa-controller-metrics-auth",
                "ClusterRole hpa-controller-metrics-reader",
                "NetworkPolicy hpa-controller/hpa-controller",
                "Role hpa-controller/hpa-controller-leader-election",
                "RoleBinding hpa-controller/hpa-controller-leader-election",
                "Service hpa-controller/hpa-controller-metrics",
                "Deployment hpa-controller/hpa-controller",
                "PodDisruptionBudget hpa-controller/hpa-controller");
        for (HasMetadata object : rendered.all()) {
            assertThat(UnknownFields.in(object)).as(Manifests.key(object)).isEmpty();
        }
    }

    @Test
    void controllerGetsEveryFlagAsAnArgument() {
        Container controller = controller(HelmChart.renderDefaults());

        assertThat(controller.getArgs()).containsExactlyElementsOf(DEFAULT_ARGS);
        assertThat(controller.getCommand()).as("the image's entrypoint runs java -jar").isEmpty();
        assertThat(controller.getImage()).isEqualTo("ghcr.io/hpa-controller/hpa-controller:0.1.0");
    }

    @Test
    void probesAskTheHealthPortAndTheMetricsPortIsNamedMetrics() {
        Container controller = controller(HelmChart.renderDefaults());

        assertThat(controller.getPorts()).extracting(p -> p.getName() + "=" + p.getContainerPort())
                .containsExactlyInAnyOrder("metrics=8080", "health=8081");
        assertThat(controller.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(controller.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
        assertThat(controller.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(controller.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
    }

    @Test
    void containerIsRestrictedAndWritesOnlyToTmp() {
        Deployment deployment = HelmChart.renderDefaults().single(Deployment.class);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        Container controller = pod.getContainers().get(0);

        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(controller.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(controller.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(controller.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(controller.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(controller.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(controller.getVolumeMounts()).singleElement()
                .satisfies(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"))
                .satisfies(m -> assertThat(pod.getVolumes()).singleElement()
                        .satisfies(v -> assertThat(v.getName()).isEqualTo(m.getName()))
                        .satisfies(v -> assertThat(v.getEmptyDir()).isNotNull()));
        assertThat(controller.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(controller.getResources().getLimits()).containsKey("memory");
    }

    @Test
    void leaseIdentityAndNamespaceComeFromTheDownwardApi() {
        Container controller = controller(HelmChart.renderDefaults());

        assertThat(controller.getEnv()).filteredOn(e -> e.getValueFrom() != null)
                .extracting(e -> e.getName() + "=" + e.getValueFrom().getFieldRef().getFieldPath())
                .containsExactly("POD_NAME=metadata.name", "POD_NAMESPACE=metadata.namespace");
    }

    @Test
    void theJvmOptionsByDefaultAreTheOnesTheBenchMeasures() {
        Container controller = controller(HelmChart.renderDefaults());

        assertThat(controller.getEnv()).extracting(EnvVar::getName, EnvVar::getValue)
                .contains(tuple("JDK_JAVA_OPTIONS", String.join(" ", Bench.IMAGE_JVM_OPTIONS)));
        assertThat(controller.getResources().getLimits().get("memory")).hasToString("256Mi");
    }

    @Test
    void serviceAccountBindingServiceAndBudgetPointAtTheControllerPods() {
        Manifests rendered = HelmChart.renderDefaults();
        Deployment deployment = rendered.single(Deployment.class);
        Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        ServiceAccount account = rendered.single(ServiceAccount.class);

        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
        assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo(account.getMetadata().getName());

        Service service = rendered.single(Service.class);
        assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
        assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("metrics");
            assertThat(p.getPort()).isEqualTo(8080);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("metrics");
        });

        PodDisruptionBudget budget = rendered.single(PodDisruptionBudget.class);
        assertThat(budget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(podLabels).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());

        ClusterRoleBinding binding = rendered.named(ClusterRoleBinding.class, "hpa-controller");
        assertThat(binding.getRoleRef().getName()).isEqualTo(rendered.controllerRole().getMetadata().getName());
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getKind()).isEqualTo("ServiceAccount");
            assertThat(s.getName()).isEqualTo(account.getMetadata().getName());
            assertThat(s.getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        });
        RoleBinding leaseBinding = rendered.single(RoleBinding.class);
        assertThat(leaseBinding.getRoleRef().getKind()).isEqualTo("Role");
        assertThat(leaseBinding.getRoleRef().getName()).isEqualTo(rendered.single(Role.class).getMetadata().getName());
        assertThat(leaseBinding.getSubjects()).singleElement().satisfies(s -> assertThat(s.getName()).isEqualTo(account.getMetadata().getName()));
    }

    @Test
    void serviceMonitorOnlyWhenEnabled() {
        assertThat(HelmChart.renderDefaults().ofKind("ServiceMonitor")).isEmpty();

        Manifests rendered = HelmChart.render(Map.of(
                "metrics.serviceMonitor.enabled", true,
                "metrics.serviceMonitor.labels.release", "kube-prometheus-stack"));

        HasMetadata monitor = rendered.ofKind("ServiceMonitor").get(0);
        assertThat(monitor).isInstanceOf(GenericKubernetesResource.class);
        assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        assertThat(monitor.getMetadata().getLabels()).contains(entry("release", "kube-prometheus-stack"));
        GenericKubernetesResource generic = (GenericKubernetesResource) monitor;
        Map<String, Object> spec = generic.get("spec");
        assertThat(spec).containsOnlyKeys("selector", "namespaceSelector", "endpoints");
        assertThat(generic.<Map<String, Object>>get("spec", "endpoints", 0))
                .containsOnly(entry("port", "metrics"), entry("path", "/metrics"), entry("honorLabels", true),
                        entry("interval", "30s"), entry("scrapeTimeout", "10s"), entry("scheme", "https"),
                        entry("bearerTokenFile", "/var/run/secrets/kubernetes.io/serviceaccount/token"),
                        entry("tlsConfig", Map.of("insecureSkipVerify", true)));
        GenericKubernetesResource plain = (GenericKubernetesResource) HelmChart.render(Map.of("metrics.serviceMonitor.enabled", true,
                "metrics.secure", false)).ofKind("ServiceMonitor").get(0);
        assertThat(plain.<Map<String, Object>>get("spec", "endpoints", 0)).doesNotContainKeys("scheme", "bearerTokenFile", "tlsConfig");
        Map<String, String> selected = generic.get("spec", "selector", "matchLabels");
        assertThat(rendered.single(Service.class).getMetadata().getLabels()).containsAllEntriesOf(selected);
    }

    /** The monitoring values all on: helm lint --strict still passes. */
    @Test
    void lintStrictPassesWithTheMonitoringObjectsOn() {
        LintResult lint = HelmChart.lintStrict(MONITORING_ON);

        assertThat(lint.isFailed()).as("%s", lint.getMessages()).isFalse();
        assertThat(lint.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    static final Map<String, Object> MONITORING_ON = Map.of(
            "metrics.serviceMonitor.enabled", true,
            "metrics.prometheusRule.enabled", true,
            "metrics.grafanaDashboard.enabled", true);

    @Test
    void prometheusRuleHasTheReadmesAlertsOnTheReleasesJobOnlyWhenEnabled() {
        assertThat(HelmChart.renderDefaults().ofKind("PrometheusRule")).isEmpty();

        Manifests rendered = HelmChart.render(Map.of("metrics.prometheusRule.enabled", true,
                "metrics.prometheusRule.labels.release", "kube-prometheus-stack"));

        GenericKubernetesResource rule = (GenericKubernetesResource) rendered.ofKind("PrometheusRule").get(0);
        assertThat(rule.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(rule.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        assertThat(rule.getMetadata().getLabels()).contains(entry("release", "kube-prometheus-stack"));
        List<Map<String, Object>> rules = rule.get("spec", "groups", 0, "rules");
        assertThat(rules).extracting(r -> r.get("alert")).containsExactly("HpaControllerNoLeader", "HpaControllerSyncErrors",
                "HpaControllerInvalidSpecs", "HpaControllerFallingBehind", "HpaAtMaxReplicas");
        assertThat(rules).allSatisfy(r -> assertThat(r).containsKeys("expr", "for", "labels", "annotations"));
        assertThat(rules.get(0).get("expr")).isEqualTo(
                "(sum(leader_election_master_status{job=\"hpa-controller-metrics\", name=\"hpa-controller\"}) or vector(0)) != 1");
        assertThat(rules).filteredOn(r -> !r.get("alert").equals("HpaAtMaxReplicas"))
                .allSatisfy(r -> assertThat((String) r.get("expr")).contains("job=\"hpa-controller-metrics\""));
        // the job is the metrics Service's name, which the ServiceMonitor scrapes
        assertThat(rendered.single(Service.class).getMetadata().getName()).isEqualTo("hpa-controller-metrics");

        Manifests single = HelmChart.render(Map.of("metrics.prometheusRule.enabled", true, "leaderElection.enabled", false,
                "replicaCount", 1, "fullnameOverride", "autoscaler"));
        GenericKubernetesResource noElection = (GenericKubernetesResource) single.ofKind("PrometheusRule").get(0);
        assertThat(noElection.<String>get("spec", "groups", 0, "rules", 0, "expr"))
                .contains("leader_election_master_status{job=\"autoscaler-metrics\", name=\"\"}");
    }

    @Test
    void grafanaDashboardIsAConfigMapTheSidecarLoadsOnlyWhenEnabled() throws Exception {
        assertThat(HelmChart.renderDefaults().all(ConfigMap.class)).isEmpty();

        Manifests rendered = HelmChart.render(Map.of("metrics.grafanaDashboard.enabled", true,
                "metrics.grafanaDashboard.namespace", "monitoring",
                "metrics.grafanaDashboard.annotations.grafana_folder", "Kubernetes"));

        ConfigMap dashboard = rendered.single(ConfigMap.class);
        assertThat(dashboard.getMetadata().getNamespace()).isEqualTo("monitoring");
        assertThat(dashboard.getMetadata().getLabels()).contains(entry("grafana_dashboard", "1"));
        assertThat(dashboard.getMetadata().getAnnotations()).containsExactly(entry("grafana_folder", "Kubernetes"));
        assertThat(dashboard.getData()).containsOnlyKeys("hpa-controller.json");
        String json = dashboard.getData().get("hpa-controller.json");
        assertThat(json).isEqualTo(Files.readString(HelmChart.CHART_DIR.resolve("dashboards/hpa-controller.json")).strip());
        Map<String, Object> parsed = Manifests.yaml(json, Map.class);
        assertThat(parsed).containsEntry("uid", "hpa-controller").containsKeys("panels", "templating");
        assertThat(HelmChart.render(Map.of("metrics.grafanaDashboard.enabled", true)).single(ConfigMap.class)
                .getMetadata().getNamespace()).as("default: the release namespace").isEqualTo(HelmChart.NAMESPACE);
    }

    @Test
    void valuesOverrideFlagsImageReplicasAndJvm() {
        Manifests rendered = HelmChart.render("""
                replicaCount: 3
                image:
                  tag: 0.2.0-rc1
                hpa:
                  syncPeriod: 30s
                  tolerance: 0.05
                  concurrentSyncs: 10
                featureGates:
                  HPAScaleToZero: false
                logFormat: json
                extraArgs: [--some-future-flag=1]
                jvmOptions: -Xss512k
                """);
        Deployment deployment = rendered.single(Deployment.class);
        Container controller = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);

        assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
        assertThat(controller.getImage()).isEqualTo("ghcr.io/hpa-controller/hpa-controller:0.2.0-rc1");
        assertThat(controller.getArgs())
                .contains("--horizontal-pod-autoscaler-sync-period=30s",
                        "--horizontal-pod-autoscaler-tolerance=0.05",
                        "--concurrent-horizontal-pod-autoscaler-syncs=10",
                        "--feature-gates=HPAScaleToZero=false",
                        "--log-format=json")
                .endsWith("--some-future-flag=1")
                .doesNotContain("--horizontal-pod-autoscaler-sync-period=15s", "--log-format=text");
        assertThat(controller.getEnv()).extracting(EnvVar::getName, EnvVar::getValue)
                .contains(tuple("JDK_JAVA_OPTIONS", "-Xss512k"));
    }

    @Test
    void theMirrorApiByDefaultTheBuiltinHpasOnRequestAndShadowBesideTheBuiltinController() {
        assertThat(controller(HelmChart.render(Map.of("takeOverBuiltinHpas", true))).getArgs())
                .contains("--hpa-apis=autoscaling/v2,autoscaling.hpa-controller.io/v1", "--shadow=false");
        assertThat(controller(HelmChart.render(Map.of("shadow", true))).getArgs())
                .contains("--hpa-apis=autoscaling.hpa-controller.io/v1", "--shadow=true");
    }

    @Test
    void watchedNamespacesBecomeFlagsAndNamespacedBindings() {
        Manifests rendered = HelmChart.render("watchNamespaces: [shop, payments]");

        assertThat(controller(rendered).getArgs()).containsSubsequence("run", "--namespace=shop", "--namespace=payments");
        assertThat(rendered.all(ClusterRoleBinding.class)).as("no cluster-wide grant but the metrics port's reviews")
                .extracting(b -> b.getRoleRef().getName()).containsExactly("hpa-controller-metrics-auth");
        assertThat(rendered.all(RoleBinding.class))
                .filteredOn(b -> "ClusterRole".equals(b.getRoleRef().getKind()))
                .extracting(b -> b.getMetadata().getNamespace())
                .containsExactlyInAnyOrder("shop", "payments");
        assertThat(HelmChart.renderDefaults().single(Deployment.class).getSpec().getTemplate().getSpec()
                .getContainers().get(0).getArgs()).noneMatch(a -> a.startsWith("--namespace"));
    }

    @Test
    void leaderElectionSettingsAndLeaseRoleFollowTheValues() {
        Manifests rendered = HelmChart.render(Map.of(
                "leaderElection.resourceName", "hpa-lock",
                "leaderElection.resourceNamespace", "kube-system",
                "leaderElection.leaseDuration", "30s"));

        assertThat(controller(rendered).getArgs()).contains(
                "--leader-elect-resource-name=hpa-lock",
                "--leader-elect-resource-namespace=kube-system",
                "--leader-elect-lease-duration=30s");
        Role role = rendered.single(Role.class);
        assertThat(role.getMetadata().getNamespace()).isEqualTo("kube-system");
        assertThat(role.getRules()).anySatisfy(r -> assertThat(r.getResourceNames()).containsExactly("hpa-lock"));
        assertThat(rendered.single(RoleBinding.class).getMetadata().getNamespace()).isEqualTo("kube-system");
    }

    @Test
    void withoutLeaderElectionOneReplicaNoLeaseRoleNoBudget() {
        Manifests rendered = HelmChart.render(Map.of("leaderElection.enabled", false, "replicaCount", 1));

        List<String> args = controller(rendered).getArgs();
        assertThat(args).contains("--leader-elect=false").noneMatch(a -> a.startsWith("--leader-elect-"));
        assertThat(rendered.all(Role.class)).isEmpty();
        assertThat(rendered.all(RoleBinding.class)).isEmpty();
        assertThat(rendered.all(PodDisruptionBudget.class)).as("a budget on one pod would block drains").isEmpty();
    }

    @Test
    void refusesTwoReplicasWithoutLeaderElectionAndShadowWithTakeOver() {
        assertThatThrownBy(() -> HelmChart.render(Map.of("leaderElection.enabled", false)))
                .hasMessageContaining("leaderElection.enabled=false needs replicaCount=1");
        assertThatThrownBy(() -> HelmChart.render(Map.of("shadow", true, "takeOverBuiltinHpas", true)))
                .hasMessageContaining("shadow=true computes the autoscaling/v2 HPAs read-only");
    }

    @Test
    void extraScaleTargetsGetTheirScaleSubresourceOnly() {
        Manifests rendered = HelmChart.render("""
                rbac:
                  extraScaleTargets:
                    - apiGroup: example.com
                      resources: [widgets, gadgets]
                """);

        List<PolicyRule> rules = rendered.controllerRole().getRules();
        assertThat(rules).filteredOn(r -> r.getApiGroups().contains("example.com")).singleElement().satisfies(r -> {
            assertThat(r.getResources()).containsExactly("widgets/scale", "gadgets/scale");
            assertThat(r.getVerbs()).containsExactly("get", "update", "patch");
        });
        assertThat(rules).hasSize(HelmChart.renderDefaults().controllerRole().getRules().size() + 1);
    }

    @Test
    void schedulingAndPodMetadataValuesReachThePod() {
        Manifests rendered = HelmChart.render("""
                nodeSelector:
                  kubernetes.io/os: linux
                tolerations:
                  - key: dedicated
                    operator: Exists
                affinity:
                  nodeAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                      nodeSelectorTerms:
                        - matchExpressions:
                            - key: pool
                              operator: Exists
                podAnnotations:
                  team: platform
                priorityClassName: system-cluster-critical
                """);
        Deployment deployment = rendered.single(Deployment.class);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();

        assertThat(UnknownFields.in(deployment)).isEmpty();
        assertThat(pod.getNodeSelector()).containsExactly(entry("kubernetes.io/os", "linux"));
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> assertThat(t.getKey()).isEqualTo("dedicated"));
        assertThat(pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0).getMatchExpressions().get(0).getKey()).isEqualTo("pool");
        assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
        assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations()).containsEntry("team", "platform");
    }

    /** By default the two replicas prefer different nodes; a single node still runs both. */
    @Test
    void replicasSpreadAcrossNodesSelectingTheReleasesPods() {
        Deployment deployment = HelmChart.renderDefaults().single(Deployment.class);

        assertThat(deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints()).singleElement().satisfies(c -> {
            assertThat(c.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(c.getWhenUnsatisfiable()).isEqualTo("ScheduleAnyway");
            assertThat(c.getMaxSkew()).isEqualTo(1);
            assertThat(c.getLabelSelector().getMatchLabels()).isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
        });
        assertThat(UnknownFields.in(deployment)).isEmpty();
    }

    @Test
    void topologySpreadConstraintsAreOverriddenOrTurnedOffByTheValues() {
        Manifests zones = HelmChart.render("autoscaler", HelmChart.NAMESPACE, """
                topologySpreadConstraints:
                  - maxSkew: 1
                    topologyKey: topology.kubernetes.io/zone
                    whenUnsatisfiable: DoNotSchedule
                  - maxSkew: 2
                    topologyKey: kubernetes.io/hostname
                    whenUnsatisfiable: ScheduleAnyway
                    labelSelector:
                      matchLabels: {team: platform}
                """);
        PodSpec pod = zones.single(Deployment.class).getSpec().getTemplate().getSpec();

        assertThat(pod.getTopologySpreadConstraints()).extracting(TopologySpreadConstraint::getTopologyKey, c -> c.getLabelSelector().getMatchLabels())
                .containsExactly(
                        tuple("topology.kubernetes.io/zone", Map.of("app.kubernetes.io/name", "hpa-controller", "app.kubernetes.io/instance", "autoscaler")),
                        tuple("kubernetes.io/hostname", Map.of("team", "platform")));
        assertThat(HelmChart.render("topologySpreadConstraints: []").single(Deployment.class).getSpec().getTemplate().getSpec()
                .getTopologySpreadConstraints()).isEmpty();
    }

    @Test
    void aCertificateSecretIsMountedAndPassedAndIsRefusedWithoutHttps() {
        Manifests rendered = HelmChart.render(Map.of("metrics.tlsSecretName", "hpa-controller-metrics-tls"));
        Container controller = controller(rendered);
        PodSpec pod = rendered.single(Deployment.class).getSpec().getTemplate().getSpec();

        assertThat(controller.getArgs()).containsSubsequence("--metrics-secure=true", "--tls-cert-file=/tls/tls.crt",
                "--tls-private-key-file=/tls/tls.key");
        assertThat(controller.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/tls");
            assertThat(m.getReadOnly()).isTrue();
        });
        assertThat(pod.getVolumes()).filteredOn(v -> v.getSecret() != null).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("hpa-controller-metrics-tls"));
        assertThatThrownBy(() -> HelmChart.render(Map.of("metrics.tlsSecretName", "x", "metrics.secure", false)))
                .hasMessageContaining("metrics.tlsSecretName is the certificate of the HTTPS metrics port: it needs metrics.secure=true");
    }

    @Test
    void theNetworkPolicyAdmitsOnlyTheMetricsAndHealthPortsFromTheGivenPeers() {
        NetworkPolicy open = HelmChart.renderDefaults().single(NetworkPolicy.class);
        assertThat(open.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertThat(open.getSpec().getIngress()).extracting(r -> r.getPorts().get(0).getPort().getStrVal()).containsExactly("metrics", "health");
        assertThat(open.getSpec().getIngress()).allSatisfy(r -> assertThat(r.getFrom()).as("any source by default").isEmpty());

        NetworkPolicy narrowed = HelmChart.render("""
                networkPolicy:
                  metricsFrom:
                    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
                """).single(NetworkPolicy.class);
        assertThat(narrowed.getSpec().getIngress().get(0).getFrom()).singleElement()
                .satisfies(p -> assertThat(p.getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "monitoring"));
        assertThat(HelmChart.render("networkPolicy: {enabled: false}").all(NetworkPolicy.class)).isEmpty();
    }

    @Test
    void theMetricsReaderIsBoundToTheGivenSubjects() {
        ClusterRoleBinding reader = HelmChart.render("""
                metrics:
                  readers: [{kind: ServiceAccount, name: prometheus-k8s, namespace: monitoring}]
                """).named(ClusterRoleBinding.class, "hpa-controller-metrics-reader");
        assertThat(reader.getRoleRef().getName()).isEqualTo("hpa-controller-metrics-reader");
        assertThat(reader.getSubjects()).singleElement().satisfies(s -> assertThat(s.getName() + "@" + s.getNamespace())
                .isEqualTo("prometheus-k8s@monitoring"));
    }

    /** Every value of values.yaml is in the chart values table of docs/configuration-and-flags.md (the path itself or a documented parent). */
    @Test
    void everyValueIsDocumentedInTheReadme() throws Exception {
        String readme = Files.readString(Path.of("docs/configuration-and-flags.md"));
        Map<String, Object> values = Manifests.yaml(Files.readString(HelmChart.CHART_DIR.resolve("values.yaml")), Map.class);
        List<String> paths = new ArrayList<>();
        collectPaths("", values, paths);

        Predicate<String> documented = path -> {
            for (String p = path; !p.isEmpty(); p = p.contains(".") ? p.substring(0, p.lastIndexOf('.')) : "") {
                if (readme.contains("| `" + p + "` |")) {
                    return true;
                }
            }
            return false;
        };
        assertThat(paths).isNotEmpty().allMatch(documented, "has a row `| `path` |` in the chart values table");
    }

    @SuppressWarnings("unchecked")
    private static void collectPaths(String prefix, Map<String, Object> values, List<String> paths) {
        values.forEach((key, value) -> {
            String path = prefix.isEmpty() ? key : prefix + "." + key;
            if (value instanceof Map<?, ?> nested && !nested.isEmpty()) {
                collectPaths(path, (Map<String, Object>) nested, paths);
            } else {
                paths.add(path);
            }
        });
    }

    private static Container controller(Manifests rendered) {
        return rendered.single(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    }
}
