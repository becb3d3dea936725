package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.hpacontroller.cli.CommandRun;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.FakeMetricsServer;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 26, scenario a: the chart's default install (the mirror API only, two replicas) on a real node, as a
 * new user on a managed cluster runs it. The controller's pods become Ready and one takes the Lease; a
 * mirror HPA on a real workload scales up on a demand step and back down after its stabilization window; a
 * metrics outage gives ScalingActive=False and events on the mirror HPA and no scale; every request of
 * the controller is allowed by the chart's own RBAC.
 */
@RealNodeTest
@ResourceLock(value = RealNodeExtension.DEFAULT_RELEASE_LEADER, mode = ResourceAccessMode.READ)
class DefaultInstallNodeIT {

    private static final Duration LONG = Duration.ofMinutes(4);

    @Test
    void aMirrorHpaScalesOnRealLoadAndSaysWhyWhenTheMetricsFail(RealNode node, ControllerRelease release) {
        Instant start = Instant.now();
        try (Timeline t = new Timeline("default-install")) {
            List<String> pods = release.pods().stream().map(p -> p.getMetadata().getName()).toList();
            assertThat(pods).hasSize(2);
            assertThat(release.pods()).allMatch(CpuWorkload::ready);
            await("one replica to hold the Lease").atMost(LONG).until(() -> pods.contains(release.leader()));
            t.mark("controller pods " + pods + " Ready; leader " + release.leader() + "; image " + imageMegabytes() + " MB");
            t.mark("start-up: " + release.footprint());

            TestNamespace ns = node.newNamespace("default-install");
            try {
                run(node, release, t, ns);
            } finally {
                release.saveLogs();
            }
            t.mark("after the scenario: " + release.footprint());
            List<AuditEvent> refused = node.plane().audit().events(AuditEvent.Filter.all().user(release.user()).since(start).code(403));
            assertThat(refused).as("every request of the default install is allowed by the chart's RBAC").isEmpty();
            assertThat(node.plane().audit().count(AuditEvent.Filter.all().user(release.user()).since(start).writes()))
                    .as("the controller wrote through the chart's ServiceAccount").isPositive();
        }
    }

    private static void run(RealNode node, ControllerRelease release, Timeline t, TestNamespace ns) {
        try (CpuWorkload web = CpuWorkload.create(node, ns.name(), "web", 2, CpuWorkload.Shape.of("20m", Duration.ofSeconds(5)))) {
            t.watchReplicas(node, ns.name(), "web");
            web.demand(20); // 50 % of the request on each of 2 pods: at the target
            await("2 web pods Ready").atMost(LONG).until(() -> web.readyPods().size() == 2);
            // a pod's start costs CPU: the HPA comes when the pods' metrics show the demand alone
            await("metrics.k8s.io to report both pods near 10m").atMost(LONG).pollInterval(Duration.ofSeconds(2))
                    .until(() -> { var m = node.podCpuMillis(ns.name()); return m.size() == 2 && m.values().stream().allMatch(v -> v <= 14); });
            t.mark("pods at the demand: " + node.podCpuMillis(ns.name()));
            NodeHpas.create(node.adminClient(), HpaApi.MIRROR, ns.name(), NodeHpas.cpuHpa("web", 2, 6, 30));
            t.watchHpa(node, HpaApi.MIRROR, ns.name(), "web");
            t.mark("mirror HPA web created: target 50 % of 20m, min 2, max 6, scale-down window 30 s; demand 20m");
            await("the HPA to read the metric").atMost(LONG).until(() -> "True ValidMetricFound".equals(condition(node, ns, "ScalingActive")));
            t.mark("ScalingActive True ValidMetricFound; " + NodeHpas.conditions(hpa(node, ns)));

            web.demand(60);
            t.mark("demand 60m (150 % of the request on 2 pods)");
            await("a scale-up to at least 4").atMost(LONG).until(() -> last(t, ns).to() >= 4);
            t.mark("scaled up: " + t.steps(ns.name(), "web"));
            explainReachesTheLeader(node, release, t, ns);

            web.demand(10);
            double dropped = t.now();
            t.mark("demand 10m (at most 13 % on 4 or more pods: 2 replicas, the minimum)");
            await("the scale-down to 2 after the 30 s window").atMost(LONG).until(() -> last(t, ns).to() == 2);
            Timeline.Step down = t.steps(ns.name(), "web").stream().filter(s -> s.to() < s.from()).findFirst().orElseThrow();
            assertThat(down.at() - dropped).as("no scale-down before the stabilization window").isGreaterThanOrEqualTo(30);
            t.mark("scaled down " + Math.round(down.at() - dropped) + " s after the demand fell");

            // a metrics outage: metrics.k8s.io answers 503 in this namespace
            ns.metrics().fail(FakeMetricsServer.Api.RESOURCE, 503);
            web.demand(120);
            t.mark("metrics.k8s.io fails with 503 for this namespace; demand 120m");
            await("ScalingActive=False FailedGetResourceMetric").atMost(LONG)
                    .until(() -> "False FailedGetResourceMetric".equals(condition(node, ns, "ScalingActive")));
            await("three syncs that met the outage (the event's count)").atMost(LONG)
                    .until(() -> failedGetEvents(node, ns) >= 3);
            assertThat(web.replicas()).as("no scale while the metric cannot be read").isEqualTo(2);
            t.mark("outage: " + NodeHpas.conditions(hpa(node, ns)) + "; events " + NodeHpas.events(node.adminClient(), ns.name(), "web"));
            assertThat(NodeHpas.events(node.adminClient(), ns.name(), "web")).anyMatch(e -> e.startsWith("Warning FailedGetResourceMetric"));

            ns.metrics().heal(FakeMetricsServer.Api.RESOURCE);
            t.mark("metrics.k8s.io answers again");
            await("the HPA to read the metric again and scale up").atMost(LONG).until(() -> web.replicas() > 2);
            t.mark("scaling again: " + NodeHpas.conditions(hpa(node, ns)));
        }
    }

    /**
     * Issue 38 items 1-2: {@code explain NS/web} with nothing but a developer's kubeconfig (a bearer token, the RBAC to
     * read HPAs, their scale, pods, metrics and the Lease, to port-forward to pods and to get /decisions/*) finds the
     * leader through its Lease and reads its history through a port-forward of the API server (the chart serves HTTPS).
     */
    private static void explainReachesTheLeader(RealNode node, ControllerRelease release, Timeline t, TestNamespace ns) {
        var admin = node.adminClient();
        String name = "explain-developer-" + ns.name();
        admin.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata().withName("developer").endMetadata().build()).create();
        admin.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata().withRules(
                rule(List.of("autoscaling", HpaApi.MIRROR.group()), List.of("horizontalpodautoscalers"), "get", "list"),
                rule(List.of("apps"), List.of("deployments", "deployments/scale", "replicasets", "statefulsets", "statefulsets/scale"), "get", "list"),
                rule(List.of(""), List.of("pods"), "get", "list"),
                rule(List.of(""), List.of("pods/portforward"), "get", "create"),
                rule(List.of("coordination.k8s.io"), List.of("leases"), "get"),
                rule(List.of("metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"), List.of("*"), "get", "list"),
                new PolicyRuleBuilder().withNonResourceURLs("/decisions/*").withVerbs("get").build()).build()).create();
        try {
            admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(name).endMetadata()
                    .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(name).endRoleRef()
                    .addNewSubject().withKind("ServiceAccount").withNamespace(ns.name()).withName("developer").endSubject().build()).create();
            String leader = release.leader();
            CommandRun run = CommandRun.of("explain", ns.name() + "/web",
                    "--kubeconfig=" + node.plane().kubeconfigForServiceAccount(ns.name(), "developer", null));
            t.mark("explain " + ns.name() + "/web as a developer: exit " + run.exit() + "\n" + run.out() + run.err());
            assertThat(run.exit()).as("explain's exit; stderr: %s", run.err()).isZero();
            assertThat(run.out())
                    .contains("history:  from the leader " + leader + " (Lease " + release.namespace() + "/hpa-controller), through a port-forward of the API server\n")
                    .containsPattern("the controller's last decision \\([^)]*\\): (holding at [4-6]|scaling up from \\d+ to [4-6])");
        } finally {
            admin.rbac().clusterRoleBindings().withName(name).delete();
            admin.rbac().clusterRoles().withName(name).delete();
        }
    }

    private static PolicyRule rule(List<String> groups, List<String> resources, String... verbs) {
        return new PolicyRuleBuilder().withApiGroups(groups).withResources(resources).withVerbs(verbs).build();
    }

    /** The last replica change the timeline saw (2 -> 2 before any). */
    private static Timeline.Step last(Timeline t, TestNamespace ns) {
        List<Timeline.Step> steps = t.steps(ns.name(), "web");
        return steps.isEmpty() ? new Timeline.Step(ns.name(), "web", 0, 2, 2) : steps.get(steps.size() - 1);
    }

    private static long imageMegabytes() {
        try {
            return java.nio.file.Files.size(RealNodeExtension.controllerImage()) / 1_000_000;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static HorizontalPodAutoscaler hpa(RealNode node, TestNamespace ns) {
        return NodeHpas.read(node.adminClient(), HpaApi.MIRROR, ns.name(), "web");
    }

    private static String condition(RealNode node, TestNamespace ns, String type) {
        return NodeHpas.condition(hpa(node, ns), type);
    }


    private static int failedGetEvents(RealNode node, TestNamespace ns) {
        return node.adminClient().v1().events().inNamespace(ns.name()).list().getItems().stream()
                .filter(e -> "FailedGetResourceMetric".equals(e.getReason()) && "web".equals(e.getInvolvedObject().getName()))
                .mapToInt(e -> e.getCount() == null ? 1 : e.getCount()).sum();
    }
}
