package io.hpacontroller.shard;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.RealKubeExtension;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 37's proof from the audit log: three {@code run --sharding} processes, each with a token bound to its own Pod
 * (the chart's RBAC with {@code sharding.enabled}),
 * and 300 HPAs, each on a Deployment that does not exist (AbleToScale=False FailedGetScale: no pod, no metric, one GET a
 * sync). An HPA's status is written only when it changes, so the test makes every HPA's status change by pointing it at
 * another missing target (the condition's message names it) and reads who wrote it. In steady state each HPA is written by exactly one replica and the
 * busiest owns at most 1.3x the mean; one replica is then SIGKILLed (no Lease release) and every HPA retargeted again
 * (its HPAs first): none of its HPAs is written by another before its Lease expired (a lease duration after its last
 * renewal), and each within the later of that expiry and the HPA's retargeting (300 patches take seconds on a loaded
 * machine) plus two retry periods (the others see a renewal up to a retry period late; the claim takes one step) and a period, and nowhere in the log is an HPA written
 * by two replicas less than a period apart.
 */
@RealKube
@Order(RealKubeExtension.ORDER_LONG)
class ShardingIT {

    private static final String RELEASE = "hpa-controller-shard";
    private static final int HPAS = 300;
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration RENEW_DEADLINE = Duration.ofSeconds(4);
    private static final Duration RETRY = Duration.ofSeconds(1);
    private static final Duration PERIOD = Duration.ofSeconds(5);
    private static final List<String> PODS = List.of(RELEASE + "-a", RELEASE + "-b", RELEASE + "-c");

    @Test
    void eachHpaHasOneWriterAndAKilledReplicasShareIsTakenOverWithinALeaseAndAPeriod(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease release = ChartReleases.install(kube, RELEASE, RELEASE, "takeOverBuiltinHpas: true\nsharding:\n  enabled: true\n");
        KubernetesClient admin = ns.admin();
        for (int i = 0; i < HPAS; i++) {
            ns.create(hpa("w" + i));
        }
        Map<String, ChildProcess> replicas = new LinkedHashMap<>();
        try {
            for (String pod : PODS) {
                replicas.put(pod, ControllerProcess.start(pod, release.kubeconfigForPod(pod), kube.directory().resolve("logs/" + ns.name() + "-" + pod + ".log"),
                        "--namespace=" + ns.name(), "--hpa-apis=autoscaling/v2", "--sharding", "--leader-elect-resource-namespace=" + RELEASE,
                        "--leader-elect-lease-duration=" + LEASE.toMillis() + "ms", "--leader-elect-renew-deadline=" + RENEW_DEADLINE.toMillis() + "ms",
                        "--leader-elect-retry-period=" + RETRY.toMillis() + "ms", "--horizontal-pod-autoscaler-sync-period=" + PERIOD.toMillis() + "ms"));
            }
            String all = String.join(",", PODS);
            await().atMost(Waits.STATE).untilAsserted(() -> {
                replicas.values().forEach(ChildProcess::checkAlive);
                assertThat(views(admin)).as("every member acts on all three").hasSize(3).allMatch(all::equals);
                assertThat(unobserved(admin, ns)).as("HPAs whose status is behind their spec").isZero();
            });

            AuditEvent.Filter statusWrites = ns.audit().user(release.user()).resource("horizontalpodautoscalers").subresource("status").writes();
            Instant steady = Instant.now();
            retarget(admin, ns, hpaNames(), 1);
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(unobserved(admin, ns)).isZero());
            Map<String, Set<String>> steadyWriters = writers(kube.audit().events(statusWrites.since(steady)));
            assertThat(steadyWriters).as("HPAs written in steady state").hasSize(HPAS);
            assertThat(steadyWriters.entrySet()).as("HPAs written by more than one replica in steady state")
                    .filteredOn(e -> e.getValue().size() != 1).isEmpty();
            Map<String, Long> owned = steadyWriters.values().stream().map(w -> w.iterator().next())
                    .collect(Collectors.groupingBy(p -> p, TreeMap::new, Collectors.counting()));
            assertThat(owned).as("HPAs per replica").containsOnlyKeys(PODS);
            assertThat(owned.values().stream().mapToLong(Long::longValue).max().orElseThrow()).as("the busiest replica's share of " + owned)
                    .isLessThanOrEqualTo((long) Math.floor(1.3 * HPAS / PODS.size()));

            String victim = PODS.get(0);
            Set<String> victimsHpas = steadyWriters.entrySet().stream().filter(e -> e.getValue().contains(victim))
                    .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
            replicas.get(victim).kill();
            Instant killed = Instant.now();
            List<String> victimsFirst = new ArrayList<>(victimsHpas);
            hpaNames().stream().filter(h -> !victimsHpas.contains(h)).forEach(victimsFirst::add);
            Map<String, Instant> retargeted = retarget(admin, ns, victimsFirst, 2);
            await().atMost(Waits.STATE).untilAsserted(() -> {
                replicas.values().stream().filter(p -> !p.name().endsWith(victim)).forEach(ChildProcess::checkAlive);
                assertThat(unobserved(admin, ns)).isZero();
            });
            Map<String, Instant> takenOver = new HashMap<>();
            for (AuditEvent e : kube.audit().events(statusWrites.since(killed))) {
                if (victimsHpas.contains(e.name()) && !victim.equals(e.podName())) {
                    takenOver.merge(e.name(), e.received(), (a, b) -> a.isBefore(b) ? a : b);
                }
            }
            assertThat(takenOver.keySet()).as("the killed replica's HPAs written by another after the kill").isEqualTo(victimsHpas);
            Instant first = takenOver.values().stream().min(Instant::compareTo).orElseThrow();
            Instant last = takenOver.values().stream().max(Instant::compareTo).orElseThrow();
            Instant lastRenewal = kube.audit().events(AuditEvent.Filter.all().namespace(RELEASE).resource("leases").writes().pod(victim))
                    .stream().filter(e -> e.code() == 200 || e.code() == 201).map(AuditEvent::received).max(Instant::compareTo).orElseThrow();
            System.out.printf("ShardingIT: HPAs per replica %s; %s killed %d ms after its last Lease renewal; its %d HPAs retargeted %d to %d ms"
                            + " after the kill, written by the others %d to %d ms after it%n", owned, victim, Duration.between(lastRenewal, killed).toMillis(),
                    victimsHpas.size(), Duration.between(killed, retargeted.get(victimsFirst.get(0))).toMillis(),
                    Duration.between(killed, retargeted.get(victimsFirst.get(victimsHpas.size() - 1))).toMillis(),
                    Duration.between(killed, first).toMillis(), Duration.between(killed, last).toMillis());
            Instant expired = lastRenewal.plus(LEASE);
            assertThat(first).as("the first of its HPAs written by another, not before its Lease expired").isAfterOrEqualTo(expired);
            // the others count it gone a lease duration after they saw its last renewal (up to a retry period after it was
            // made), then claim in one step (drain, publish, read: a retry period more); a gained HPA keeps its slot in the period
            Duration claim = RETRY.multipliedBy(2);
            assertThat(takenOver.entrySet()).as("the killed replica's HPAs written by another later than its Lease's expiry (or their"
                            + " retargeting, when later), a claim step and a period")
                    .filteredOn(e -> e.getValue().isAfter(later(expired, retargeted.get(e.getKey())).plus(claim).plus(PERIOD))).isEmpty();

            List<AuditEvent> everyWrite = new ArrayList<>(kube.audit().events(statusWrites));
            everyWrite.sort(Comparator.comparing(AuditEvent::received));
            Map<String, AuditEvent> previous = new HashMap<>();
            List<String> twoWriters = new ArrayList<>();
            for (AuditEvent e : everyWrite) {
                AuditEvent p = previous.put(e.name(), e);
                if (p != null && !p.podName().equals(e.podName()) && Duration.between(p.received(), e.received()).compareTo(PERIOD) < 0) {
                    twoWriters.add(e.name() + ": " + p.podName() + " at " + p.received() + ", " + e.podName() + " at " + e.received());
                }
            }
            assertThat(twoWriters).as("HPAs written by two replicas within one period").isEmpty();
        } finally {
            replicas.values().forEach(p -> p.stop(Duration.ofSeconds(10)));
        }
    }

    private static HorizontalPodAutoscaler hpa(String name) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(target(name, 0)).endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(5).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec().build();
    }

    /** A Deployment that does not exist: the HPA's status is AbleToScale=False FailedGetScale, its message naming it. */
    private static String target(String hpa, int round) {
        return hpa + "-target-" + round;
    }

    private static List<String> hpaNames() {
        return IntStream.range(0, HPAS).mapToObj(i -> "w" + i).toList();
    }

    /**
     * These HPAs pointed at another missing target, in this order (one merge patch each): each one's owner writes its status
     * (the message names the target) at its next sync. When each patch was answered.
     */
    private static Map<String, Instant> retarget(KubernetesClient admin, TestNamespace ns, List<String> hpas, int round) {
        Map<String, Instant> answered = new HashMap<>();
        for (String name : hpas) {
            admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(name)
                    .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"scaleTargetRef\":{\"name\":\"" + target(name, round) + "\"}}}");
            answered.put(name, Instant.now());
        }
        return answered;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** HPAs whose status does not name their current target yet. */
    private static long unobserved(KubernetesClient admin, TestNamespace ns) {
        return admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).list().getItems().stream()
                .filter(h -> h.getStatus() == null || h.getStatus().getConditions() == null || h.getStatus().getConditions().stream()
                        .noneMatch(c -> c.getMessage() != null && c.getMessage().contains("\"" + h.getSpec().getScaleTargetRef().getName() + "\"")))
                .count();
    }

    private static List<String> views(KubernetesClient admin) {
        return admin.leases().inNamespace(RELEASE).withLabel(MemberLease.MEMBER_LABEL).list().getItems().stream()
                .map(Lease::getMetadata).map(m -> m.getAnnotations() == null ? "" : m.getAnnotations().getOrDefault(MemberLease.VIEW_ANNOTATION, ""))
                .toList();
    }

    private static Map<String, Set<String>> writers(List<AuditEvent> writes) {
        Map<String, Set<String>> by = new HashMap<>();
        writes.forEach(e -> by.computeIfAbsent(e.name(), k -> new TreeSet<>()).add(e.podName()));
        return by;
    }
}
