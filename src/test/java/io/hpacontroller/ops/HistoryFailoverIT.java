package io.hpacontroller.ops;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRulesBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.KeptHistories;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 19's scenario on a real API server: two replicas of {@code run} as processes, a 15 s lease, syncs every
 * second, two HPAs in one namespace.
 * <ul>
 * <li>{@code down}: a 30 s scale-down window. Its load rises (2 -> 8), then drops; the leader is killed hard about
 *     8 s after the drop. The scale-down must come when the window has passed since the last high recommendation,
 *     not a fresh window after the takeover (in memory only: about 55 s after the drop).</li>
 * <li>{@code up}: a scale-up policy of +2 pods per 60 s. Its load rises right before the kill; the leader scales
 *     2 -> 4 and dies. The new leader must wait out the period before the next +2 (in memory only: at once).</li>
 * </ul>
 * The same scenario with {@code --persist-history=false} shows upstream's in-memory behavior, so the test can fail.
 */
@RealKube
@Order(RealKubeExtension.ORDER_LONG)
class HistoryFailoverIT {

    private static final Duration LEASE = Duration.ofSeconds(15);
    /** Long enough that a loaded machine does not lose the lease before the test kills its holder. */
    private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
    private static final Duration RETRY = Duration.ofSeconds(1);
    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final Duration PERIOD = Duration.ofSeconds(60);

    /**
     * What a run saw: the last high recommendation (null when nothing was kept), when the standby took the lease over
     * (its acquireTime), the steps.
     */
    private record Run(Instant lastHigh, Instant takeover, Instant scaledDown, Instant firstStep, Instant secondStep) {
    }

    @Test
    void withPersistenceTheNewLeaderKeepsTheWindowAndThePolicyPeriodOfTheOldOne(KubeControlPlane kube, TestNamespace ns) throws Exception {
        Run run = failover(kube, ns, "hpa-state-on", true);

        assertThat(run.lastHigh()).as("the last high recommendation, kept when the load dropped").isNotNull();
        assertThat(Duration.between(run.lastHigh(), run.scaledDown())).as("from the last high recommendation to the scale-down")
                .isGreaterThanOrEqualTo(WINDOW.minusMillis(200));
        // the order, not seconds a loaded machine stretches: a fresh window from the takeover would end later
        assertThat(run.scaledDown()).as("the scale-down, inside a window started at the takeover (%s)", run.takeover())
                .isBefore(run.takeover().plus(WINDOW));
        assertThat(Duration.between(run.firstStep(), run.secondStep())).as("between the two +2 steps of the scale-up policy")
                .isGreaterThanOrEqualTo(PERIOD.minusSeconds(2));
    }

    @Test
    void withoutPersistenceTheNewLeaderStartsAFreshWindowAndAFreshPolicyPeriod(KubeControlPlane kube, TestNamespace ns) throws Exception {
        Run run = failover(kube, ns, "hpa-state-off", false);

        assertThat(run.lastHigh()).isNull();
        // from the takeover itself (its acquireTime), not the kill plus a lease duration, which a loaded machine stretches
        assertThat(run.scaledDown()).as("a window from the takeover (%s): late", run.takeover())
                .isAfterOrEqualTo(run.takeover().plus(WINDOW).minusMillis(200));
        // the order, not seconds a loaded machine stretches: inside the period the other test waits out
        assertThat(Duration.between(run.firstStep(), run.secondStep())).as("a second burst right after the takeover, inside the policy's period")
                .isLessThan(PERIOD.minusSeconds(2));
    }

    private Run failover(KubeControlPlane kube, TestNamespace ns, String release, boolean persist) throws Exception {
        ChartRelease chart = ChartReleases.install(kube, release, release, "takeOverBuiltinHpas: true\n");
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("down", 2));
        ns.create(Workloads.deployment("up", 2));
        ns.metrics().podUsage("app=down", "200m", "64Mi"); // 4x the target: 8
        ns.metrics().podUsage("app=up", "50m", "64Mi"); // at the target
        ns.create(hpa("down", 2, 8, new HPAScalingRulesBuilder().addNewPolicy().withType("Pods").withValue(10).withPeriodSeconds(15).endPolicy()
                .withStabilizationWindowSeconds(0).build(), new HPAScalingRulesBuilder().withStabilizationWindowSeconds((int) WINDOW.toSeconds()).build()));
        ns.create(hpa("up", 2, 10, new HPAScalingRulesBuilder().addNewPolicy().withType("Pods").withValue(2).withPeriodSeconds((int) PERIOD.toSeconds())
                .endPolicy().withStabilizationWindowSeconds(0).build(), null));

        Map<String, ChildProcess> replicas = new LinkedHashMap<>();
        try {
            for (String pod : List.of(release + "-a", release + "-b")) {
                replicas.put(pod, ControllerProcess.start(pod, chart.kubeconfigForPod(pod), kube.directory().resolve("logs/" + ns.name() + "-" + pod + ".log"),
                        "--namespace=" + ns.name(), "--hpa-apis=autoscaling/v2", "--persist-history=" + persist, "--leader-elect=true",
                        "--leader-elect-resource-namespace=" + release,
                        "--leader-elect-lease-duration=" + LEASE.toMillis() + "ms", "--leader-elect-renew-deadline=" + RENEW_DEADLINE.toMillis() + "ms",
                        "--leader-elect-retry-period=" + RETRY.toMillis() + "ms", "--horizontal-pod-autoscaler-sync-period=1s"));
            }
            await().atMost(Waits.STATE).untilAsserted(() -> {
                replicas.values().forEach(ChildProcess::checkAlive);
                assertThat(replicas(admin, ns, "down")).isEqualTo(8);
            });
            String leader = lease(admin, release).getSpec().getHolderIdentity();
            assertThat(replicas).containsKey(leader);
            String standby = replicas.keySet().stream().filter(p -> !p.equals(leader)).findFirst().orElseThrow();
            Thread.sleep(3000); // the scenario: the load stays high a while (a few syncs recommend 8)

            ns.metrics().podUsage("app=down", "10m", "64Mi"); // recommends 2; the window holds 8 for 30 s
            Instant dropped = Instant.now();
            Instant lastHigh = null;
            if (persist) {
                await().atMost(Waits.STATE).until(() -> KeptHistories.runInProgress(admin, ns.name(), "down") == 2);
                lastHigh = KeptHistories.lastAbove(admin, ns.name(), "down", 2); // above 2 is the high load
            }
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), dropped.plusSeconds(6)).toMillis())); // the scenario's timing
            ns.metrics().podUsage("app=up", "200m", "64Mi"); // recommends 8: +2 per 60 s
            await().atMost(Waits.STATE).until(() -> replicas(admin, ns, "up") == 4);
            Instant firstStep;
            replicas.get(leader).kill();
            Instant killed = Instant.now();
            assertThat(replicas(admin, ns, "down")).as("still inside the window when the leader died").isEqualTo(8);

            await().atMost(Waits.STATE).until(() -> standby.equals(lease(admin, release).getSpec().getHolderIdentity()));
            Instant takeover = lease(admin, release).getSpec().getAcquireTime().toInstant();
            // both watched together: each step's time is when it was first seen
            Instant[] seen = new Instant[2];
            await().atMost(Waits.STATE).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (seen[0] == null && replicas(admin, ns, "down") == 2) {
                    seen[0] = Instant.now();
                }
                if (seen[1] == null && replicas(admin, ns, "up") >= 6) {
                    seen[1] = Instant.now();
                }
                return seen[0] != null && seen[1] != null;
            });
            Instant scaledDown = seen[0];
            // the two +2 steps as the API server received them (polling saw them later, by as much as a loaded machine delays a poll)
            kube.audit().sync();
            List<Instant> upWrites = kube.audit().events(AuditEvent.Filter.all().namespace(ns.name()).resource("deployments").subresource("scale")
                    .name("up").writes().code(200)).stream().map(AuditEvent::received).sorted().toList();
            assertThat(upWrites).as("the scale writes of up: 2 -> 4 by the old leader, 4 -> 6 by the new one").hasSizeGreaterThanOrEqualTo(2);
            firstStep = upWrites.get(0);
            Instant secondStep = upWrites.get(1);
            replicas.get(standby).checkAlive();
            Run run = new Run(lastHigh, takeover, scaledDown, firstStep, secondStep);
            System.out.printf("HistoryFailoverIT --persist-history=%s: killed %.1f s after the drop; taken over %.1f s after the kill; "
                            + "scale-down %.1f s after the drop%s; second +2 step %.1f s after the first%n", persist, seconds(dropped, killed),
                    seconds(killed, takeover), seconds(dropped, scaledDown),
                    lastHigh == null ? "" : String.format(" (%.1f s after the last high recommendation)", seconds(lastHigh, scaledDown)),
                    seconds(firstStep, secondStep));
            return run;
        } finally {
            replicas.values().forEach(p -> p.stop(Duration.ofSeconds(10)));
        }
    }

    private static double seconds(Instant from, Instant to) {
        return Duration.between(from, to).toMillis() / 1000.0;
    }

    private static HorizontalPodAutoscaler hpa(String name, int min, int max, HPAScalingRules up, HPAScalingRules down) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(name).endScaleTargetRef()
                .withMinReplicas(min).withMaxReplicas(max).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric()
                .withNewBehavior().withScaleUp(up).withScaleDown(down).endBehavior().endSpec().build();
    }

    private static int replicas(KubernetesClient admin, TestNamespace ns, String name) {
        return admin.apps().deployments().inNamespace(ns.name()).withName(name).get().getSpec().getReplicas();
    }

    private static Lease lease(KubernetesClient admin, String release) {
        return admin.leases().inNamespace(release).withName("hpa-controller").get();
    }
}
