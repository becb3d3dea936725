package io.hpacontroller.ops;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas of {@code run} as processes, the chart's ServiceAccount each with a token bound to its own
 * Pod (the audit log tells them apart). The leader is killed with SIGKILL (no shutdown hook, no lease
 * release): the standby takes the Lease over once it expired, and between the two there is no write by
 * the old leader after its lease expired and no scale made twice.
 */
@RealKube
@Order(RealKubeExtension.ORDER_LONG)
class LeaderElectionIT {

    private static final String RELEASE = "hpa-controller-ha";
    /** Longer than the renew deadline by more than the 1 s a write may take (the write fence). */
    private static final Duration LEASE = Duration.ofSeconds(15);
    /** Long enough that a loaded machine does not lose the lease before the test kills its holder. */
    private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
    private static final Duration RETRY = Duration.ofSeconds(1);

    @Test
    void theStandbyTakesOverAfterTheLeaderIsKilledWithoutAWriteFromTheOldLeaderOrADoubleScale(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease release = ChartReleases.install(kube, RELEASE, RELEASE, "takeOverBuiltinHpas: true\n");
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(2).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec().build());

        Map<String, ChildProcess> replicas = new java.util.LinkedHashMap<>();
        try {
            for (String pod : List.of(RELEASE + "-a", RELEASE + "-b")) {
                replicas.put(pod, ControllerProcess.start(pod, release.kubeconfigForPod(pod), kube.directory().resolve("logs/" + ns.name() + "-" + pod + ".log"),
                        "--namespace=" + ns.name(), "--hpa-apis=autoscaling/v2", "--leader-elect=true", "--leader-elect-resource-namespace=" + RELEASE,
                        "--leader-elect-lease-duration=" + LEASE.toMillis() + "ms", "--leader-elect-renew-deadline=" + RENEW_DEADLINE.toMillis() + "ms",
                        "--leader-elect-retry-period=" + RETRY.toMillis() + "ms", "--horizontal-pod-autoscaler-sync-period=1s",
                        "--horizontal-pod-autoscaler-downscale-stabilization=0s"));
            }
            await().atMost(Waits.STATE).untilAsserted(() -> {
                replicas.values().forEach(ChildProcess::checkAlive);
                assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(4);
                assertThat(rescales(admin, ns)).as("events are posted in the background: killed before, it would be lost").contains("New size: 4");
            });
            ns.metrics().podUsage("app=web", "50m", "64Mi"); // at the target: 4 replicas are right
            String leader = lease(admin).getSpec().getHolderIdentity();
            assertThat(replicas).containsKey(leader);
            String standby = replicas.keySet().stream().filter(p -> !p.equals(leader)).findFirst().orElseThrow();

            replicas.get(leader).kill();
            Instant killed = Instant.now();
            await().atMost(Waits.STATE).until(() -> standby.equals(lease(admin).getSpec().getHolderIdentity()));
            // half the target: the new leader scales 4 -> 2, and stays there (the 2 pods left would ask for 1: minReplicas 2
            // keeps a sync right after the scale-down from making a second scale before the scales are counted)
            ns.metrics().podUsage("app=web", "25m", "64Mi");
            await().atMost(Waits.STATE).until(() ->
                    admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas() == 2);

            // the leader's acquisition (a create, 201) counts as its last renewal when it was killed before the first renewal
            AuditEvent.Filter lease = AuditEvent.Filter.all().namespace(RELEASE).resource("leases").name("hpa-controller");
            AuditEvent lastRenewal = kube.audit().events(lease.writes().pod(leader)).stream().filter(e -> e.code() == 200 || e.code() == 201)
                    .max(Comparator.comparing(AuditEvent::received)).orElseThrow();
            Instant takeover = kube.audit().events(lease.writes().pod(standby)).stream().filter(e -> e.code() == 200 || e.code() == 201)
                    .map(AuditEvent::received).min(Instant::compareTo).orElseThrow();
            assertThat(lastRenewal.received()).isBefore(killed);
            assertThat(Duration.between(lastRenewal.received(), takeover)).as("from the last renewal to the takeover")
                    .isGreaterThanOrEqualTo(LEASE.minus(Duration.ofMillis(500)));
            // and promptly, counted in its attempts (one a retry period), not in seconds a loaded machine stretches: the one that
            // took over came a lease duration after it read that renewal, and at most two came before it since (the standby
            // counts from when the answer reached it, which can be late)
            Instant seen = kube.audit().events(lease.verb("get").pod(standby).since(lastRenewal.completed())).stream()
                    .min(Comparator.comparing(AuditEvent::received)).orElseThrow().completed();
            assertThat(kube.audit().events(lease.verb("get").pod(standby).between(seen.plus(LEASE), takeover)))
                    .as("the standby's reads of the Lease from a lease duration after it saw the last renewal to its takeover")
                    .hasSizeLessThanOrEqualTo(3);

            Instant expired = lastRenewal.received().plus(LEASE);
            AuditEvent.Filter writesInNamespace = ns.audit().writes().user(release.user());
            assertThat(kube.audit().events(writesInNamespace.pod(leader).since(expired))).as("writes of the old leader after its lease expired").isEmpty();
            assertThat(kube.audit().events(writesInNamespace.pod(standby).before(takeover))).as("writes of the standby before it led").isEmpty();
            List<String> scales = new ArrayList<>();
            for (AuditEvent e : kube.audit().events(writesInNamespace.resource("deployments").subresource("scale").code(200))) {
                scales.add(e.podName());
            }
            assertThat(scales).as("one scale by each leader, none repeated").containsExactly(leader, standby);
            await().atMost(Waits.STATE).untilAsserted(() ->
                    assertThat(rescales(admin, ns)).containsExactlyInAnyOrder("New size: 4", "New size: 2"));
        } finally {
            replicas.values().forEach(p -> p.stop(Duration.ofSeconds(10)));
        }
    }

    private static List<String> rescales(KubernetesClient admin, TestNamespace ns) {
        return admin.v1().events().inNamespace(ns.name()).withField("reason", "SuccessfulRescale").list().getItems().stream()
                .map(e -> e.getMessage().substring(0, e.getMessage().indexOf(';'))).toList();
    }

    private static Lease lease(KubernetesClient admin) {
        return admin.leases().inNamespace(RELEASE).withName("hpa-controller").get();
    }
}
