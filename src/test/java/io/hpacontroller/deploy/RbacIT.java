package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.ops.ServingCertificate;
import io.hpacontroller.testing.TrustingHttps;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * deploy/'s RBAC on a real API server: the controller runs as the chart's ServiceAccount with the
 * ClusterRole, Role and bindings exactly as shipped (plus the status rule {@code takeOverBuiltinHpas}
 * adds, and the one rule {@code rbac.extraScaleTargets} adds for a CRD target) through a whole scale-up and scale-down with Resource, Pods, Object and External
 * metrics and a custom resource target, with leader election on: not one request is refused. Without
 * one of the rules the same controller meets a 403, so the check can fail.
 */
@RealKube
class RbacIT {

    private static ControllerOptions options(TestNamespace ns) {
        return new ControllerOptions(ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO), Duration.ofSeconds(1), 2,
                List.of(ns.name()), Duration.ofSeconds(5));
    }

    @Test
    void theRenderedRbacIsDeploysPlusTheTakeOverAndExtraScaleTargetRules() {
        List<HasMetadata> rendered = HelmChart.objects(HelmChart.RELEASE, HelmChart.NAMESPACE, ChartReleases.FULL_REPLACEMENT);
        Manifests deploy = Manifests.deployDir();
        ClusterRole role = single(rendered, ClusterRole.class);
        List<PolicyRule> rules = new ArrayList<>(role.getRules());
        PolicyRule extra = new PolicyRuleBuilder().withApiGroups("example.com").withResources("widgets/scale").withVerbs("get", "update", "patch").build();
        PolicyRule takeOver = new PolicyRuleBuilder().withApiGroups("autoscaling").withResources("horizontalpodautoscalers/status")
                .withVerbs("update", "patch").build();
        assertThat(rules).contains(extra, takeOver);
        rules.remove(extra);
        rules.remove(takeOver);
        assertThat(rules).isEqualTo(deploy.controllerRole().getRules());
        assertThat(single(rendered, Role.class).getRules()).isEqualTo(deploy.single(Role.class).getRules());
        assertThat(single(rendered, RoleBinding.class).getSubjects()).isEqualTo(deploy.single(RoleBinding.class).getSubjects());
        assertThat(single(rendered, RoleBinding.class).getRoleRef()).isEqualTo(deploy.single(RoleBinding.class).getRoleRef());
        assertThat(single(rendered, ClusterRoleBinding.class).getSubjects()).isEqualTo(deploy.named(ClusterRoleBinding.class, HelmChart.RELEASE).getSubjects());
        assertThat(single(rendered, ClusterRoleBinding.class).getRoleRef()).isEqualTo(deploy.named(ClusterRoleBinding.class, HelmChart.RELEASE).getRoleRef());
    }

    /** The only object of the type, among the controller's own (the metrics port's ClusterRoles and binding are another test's). */
    private static <T extends HasMetadata> T single(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).filter(o -> !o.getMetadata().getName().contains("-metrics-")).reduce((a, b) -> {
            throw new AssertionError("more than one " + type.getSimpleName());
        }).orElseThrow();
    }

    @Test
    void theShippedRbacCoversAWholeScaleUpAndDownWithEveryMetricTypeWithoutOne403(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease release = ChartReleases.shipped(kube);
        KubernetesClient admin = ns.admin();
        Instant start = Instant.now();
        ns.create(Workloads.deployment("web", 2));
        Workloads.installWidgetCrd(admin);
        var widgets = admin.genericKubernetesResources(Workloads.WIDGETS).inNamespace(ns.name());
        GenericKubernetesResource w = widgets.resource(Workloads.widget("worker", 2)).create();
        w.getAdditionalProperties().put("status", Map.of("replicas", 2, "selector", "app=worker"));
        widgets.resource(w).updateStatus();
        load(ns, 2.0);
        ns.create(webHpa(ns));
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("worker").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("example.com/v1").withKind("Widget").withName("worker").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(4).addToMetrics(new MetricSpecBuilder().withType("External").withNewExternal()
                        .withNewMetric().withName("queue_messages_ready").endMetric().withNewTarget().withType("AverageValue").withNewAverageValue("10")
                        .endTarget().endExternal().build()).endSpec().build());
        LeaseSettings election = Waits.steadyLease(release.namespace(), "hpa-controller", "rbac-it");
        // a scraper of the metrics port, which has the API server review its token and its access
        String scraper = ChartReleases.serviceAccountToken(admin, ns.name(), "scraper", true);
        MetricsServing https;
        try {
            https = MetricsServing.secure(ServingCertificate.selfSigned(Instant.now()));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        try (InProcessController controller = InProcessController.start(release.client(), options(ns), election, https)) {
            HttpClient scrape = TrustingHttps.client(Duration.ofSeconds(30));
            HttpRequest metrics = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + controller.runtime().metricsPort() + "/metrics"))
                    .header("Authorization", "Bearer " + scraper).build();
            assertThat(scrape.send(metrics, HttpResponse.BodyHandlers.ofString()).statusCode()).as("a scrape by a metrics reader").isEqualTo(200);
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(replicas(ns, "web")).isEqualTo(4);
                assertThat(widgetReplicas(ns, "worker")).isEqualTo(4);
                HorizontalPodAutoscaler web = admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get();
                assertThat(web.getStatus()).isNotNull();
                // (v1.26 stores HPAs as autoscaling/v1: the cpu metric comes back after the others)
                assertThat(web.getStatus().getCurrentMetrics()).extracting(m -> m.getType()).containsExactlyInAnyOrder("Resource", "Pods", "Object");
            });
            load(ns, 0.2);
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(replicas(ns, "web")).isEqualTo(1);
                assertThat(widgetReplicas(ns, "worker")).isEqualTo(1);
                assertThat(admin.v1().events().inNamespace(ns.name()).withField("reason", "SuccessfulRescale").list().getItems()).hasSize(4);
            });
        }
        List<AuditEvent> requests = kube.audit().events(AuditEvent.Filter.all().user(release.user()).since(start));
        assertThat(requests).as("nothing the controller asked for was refused").noneMatch(e -> e.code() == 403);
        // and it did ask for everything: reads, every metrics API, the writes, the Lease
        assertThat(requests).extracting(e -> e.verb() + " " + (e.apiGroup() == null ? "" : e.apiGroup() + "/") + e.resource()
                        + (e.subresource() == null || e.apiGroup() != null && e.apiGroup().contains("metrics") ? "" : "/" + e.subresource()))
                .contains("list autoscaling/horizontalpodautoscalers", "watch autoscaling/horizontalpodautoscalers", "list pods", "watch pods",
                        "list apps/deployments", "watch apps/deployments", "list metrics.k8s.io/pods", "get custom.metrics.k8s.io/pods",
                        "get custom.metrics.k8s.io/deployments.apps", "list external.metrics.k8s.io/queue_messages_ready",
                        "update autoscaling/horizontalpodautoscalers/status", "update apps/deployments/scale", "get example.com/widgets/scale",
                        "update example.com/widgets/scale", "create events", "get coordination.k8s.io/leases", "update coordination.k8s.io/leases",
                        "create authentication.k8s.io/tokenreviews", "create authorization.k8s.io/subjectaccessreviews");
    }

    private static HorizontalPodAutoscaler webHpa(TestNamespace ns) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(4)
                .addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget().withType("Utilization")
                .withAverageUtilization(50).endTarget().endResource().endMetric()
                .addNewMetric().withType("Pods").withNewPods().withNewMetric().withName("packets-per-second").endMetric()
                .withNewTarget().withType("AverageValue").withNewAverageValue("10").endTarget().endPods().endMetric()
                .addNewMetric().withType("Object").withNewObject().withNewDescribedObject().withApiVersion("apps/v1").withKind("Deployment")
                .withName("web").endDescribedObject().withNewMetric().withName("requests-per-second").endMetric()
                .withNewTarget().withType("Value").withNewValue("100").endTarget().endObject().endMetric()
                .endSpec().build();
    }

    /** Every metric at {@code ratio} times its target. */
    private static void load(TestNamespace ns, double ratio) {
        ns.metrics().podUsage("app=web", Math.round(50 * ratio) + "m", "64Mi")
                .podsMetric("packets-per-second", Long.toString(Math.round(10 * ratio)))
                .objectMetric("deployments.apps", "web", "requests-per-second", Long.toString(Math.round(100 * ratio)))
                .externalMetric("queue_messages_ready", Long.toString(Math.round(20 * ratio)));
    }

    private static int replicas(TestNamespace ns, String deployment) {
        return ns.admin().apps().deployments().inNamespace(ns.name()).withName(deployment).get().getSpec().getReplicas();
    }

    private static Object widgetReplicas(TestNamespace ns, String name) {
        return ((Map<?, ?>) ns.admin().genericKubernetesResources(Workloads.WIDGETS).inNamespace(ns.name()).withName(name).get()
                .getAdditionalProperties().get("spec")).get("replicas");
    }

    @ParameterizedTest(name = "without the rule on {0} {1}")
    @CsvSource({
            "metrics.k8s.io, pods, list, pods, hpa-controller-no-metrics",
            "autoscaling, horizontalpodautoscalers/status, update, horizontalpodautoscalers, hpa-controller-no-status",
            "apps, deployments/scale, update, deployments, hpa-controller-no-scale",
    })
    void withoutOneRuleOfTheClusterRoleTheControllerIsRefused(String group, String resource, String verb, String auditedResource,
                                                              String release, KubeControlPlane kube, TestNamespace ns) {
        List<HasMetadata> rendered = HelmChart.objects(release, release, "takeOverBuiltinHpas: true\n");
        ClusterRole role = single(rendered, ClusterRole.class);
        assertThat(role.getRules().removeIf(r -> r.getApiGroups().contains(group) && r.getResources().contains(resource)))
                .as("the rule on %s %s", group, resource).isTrue();
        ChartRelease crippled = ChartRelease.install(kube, release, rendered);
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec().build());
        try (InProcessController controller = InProcessController.start(crippled.client(), options(ns), null)) {
            await().atMost(Waits.STATE).until(() -> kube.audit().count(ns.audit().user(crippled.user()).verb(verb).resource(auditedResource)
                    .apiGroup(group).code(403)) > 0);
        }
    }
}
