package io.hpacontroller.shard;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.KeptHistories;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.RealKubeExtension;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
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
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 37's proof from the audit log, in one run of {@code run --sharding} processes, each with a token bound to its own
 * Pod (the chart's RBAC with {@code sharding.enabled}), and 300 HPAs, each on a Deployment that does not exist
 * (AbleToScale=False FailedGetScale: no pod, no metric, one GET of the scale a sync, which tells who synced it). An HPA's
 * status is written only when it changes, so the test changes every HPA's status by pointing it at another missing
 * target (the condition's message names it) and reads who wrote it. Phases, in sequence:
 * <ol>
 * <li>three replicas: each HPA is written by exactly one replica; the busiest owns at most 1.3x the mean;</li>
 * <li>a fourth joins while every HPA is retargeted: afterwards each HPA is synced by the ring's owner over the four, and
 *     the HPAs that moved (15-35 %) all moved to the new one;</li>
 * <li>the fourth is SIGSTOPped while it writes its HPAs' statuses, the others take them over once its Lease expired,
 *     and it is SIGCONTinued: none of its writes succeeds between the expiry and the moment it could own an HPA again;</li>
 * <li>it is SIGKILLed (no Lease release): none of its HPAs is written by another before its Lease expired, and each
 *     within that expiry (or its retargeting) plus two retry periods and a period;</li>
 * <li>two HPAs with a 45 s scale-down window (real Deployments, fake metrics) whose load dropped right before the join
 *     and the stop: each is scaled down by a later owner no earlier than the window after its last high recommendation,
 *     and earlier than a window after that owner's first sync (its history crossed the handovers).</li>
 * </ol>
 * Nowhere in the log is an HPA written by two replicas less than a period apart, but for the resumed replica's first
 * period (its first syncs come at once, their slots having passed while it was stopped; checked per HPA instead).
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
    private static final Duration WINDOW = Duration.ofSeconds(45);
    private static final List<String> PODS = List.of(RELEASE + "-a", RELEASE + "-b", RELEASE + "-c");
    private static final String JOINER = RELEASE + "-d";
    private static final List<String> ALL = List.of(PODS.get(0), PODS.get(1), PODS.get(2), JOINER);

    /** An HPA with a scale-down window: its load dropped at {@code dropped}; its last high recommendation as kept. */
    private record Window(String hpa, Instant dropped, Instant lastHigh) {
    }

    @Test
    void eachHpaHasOneWriterAcrossAJoinAStopAndAKill(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease release = ChartReleases.install(kube, RELEASE, RELEASE, "takeOverBuiltinHpas: true\nsharding:\n  enabled: true\n");
        KubernetesClient admin = ns.admin();
        for (int i = 0; i < HPAS; i++) {
            ns.create(hpa("w" + i));
        }
        String winJoin = ownedByJoiner(ns, "win-join-");
        String winStop = ownedByJoiner(ns, "win-stop-");
        for (String w : List.of(winJoin, winStop)) {
            ns.create(Workloads.deployment(w, 2));
            ns.metrics().podUsage("app=" + w, "100m", "64Mi"); // twice the target: 4, the maximum
            ns.create(windowHpa(w));
        }
        Map<String, ChildProcess> replicas = new LinkedHashMap<>();
        try {
            for (String pod : PODS) {
                replicas.put(pod, start(kube, ns, release, pod));
            }
            awaitViews(admin, replicas, PODS, PODS);
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(unobserved(admin, ns)).as("HPAs whose status is behind their spec").isZero();
                assertThat(List.of(scale(admin, ns, winJoin), scale(admin, ns, winStop))).containsOnly(4);
            });

            AuditEvent.Filter statusWrites = ns.audit().user(release.user()).resource("horizontalpodautoscalers").subresource("status").writes();
            Instant steady = Instant.now();
            retarget(admin, ns, hpaNames(), 1);
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(unobserved(admin, ns)).isZero());
            Map<String, Set<String>> steadyWriters = writers(kube.audit().events(statusWrites.since(steady)));
            steadyWriters.keySet().retainAll(hpaNames());
            assertThat(steadyWriters.entrySet()).as("HPAs written in steady state, each by one replica").hasSize(HPAS)
                    .allMatch(e -> e.getValue().size() == 1);
            Map<String, Long> owned = steadyWriters.values().stream().map(w -> w.iterator().next())
                    .collect(Collectors.groupingBy(p -> p, TreeMap::new, Collectors.counting()));
            assertThat(owned).as("HPAs per replica").containsOnlyKeys(PODS);
            assertThat(owned.values().stream().mapToLong(Long::longValue).max().orElseThrow()).as("the busiest replica's share of " + owned)
                    .isLessThanOrEqualTo((long) Math.floor(1.3 * HPAS / PODS.size()));

            Window joinWindow = drop(admin, ns, winJoin);
            Instant joined = Instant.now();
            replicas.put(JOINER, start(kube, ns, release, JOINER));
            retarget(admin, ns, hpaNames(), 2); // statuses change while the fourth joins
            awaitViews(admin, replicas, ALL, ALL);
            Instant settled = Instant.now();
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(unobserved(admin, ns)).isZero();
                assertThat(syncers(kube, ns, release, settled).keySet()).as("HPAs synced since the four settled").containsAll(hpaNames());
            });
            Map<String, Set<String>> fourSync = syncers(kube, ns, release, settled);
            assertThat(hpaNames()).as("HPAs synced by another than their owner on the ring of four since it settled")
                    .filteredOn(h -> !fourSync.get(h).equals(Set.of(Ring.owner(key(ns, h), ALL)))).isEmpty();
            List<String> moved = hpaNames().stream().filter(h -> !steadyWriters.get(h).equals(fourSync.get(h))).toList();
            assertThat(moved).as("HPAs moved when the fourth joined").allMatch(h -> fourSync.get(h).equals(Set.of(JOINER)))
                    .hasSizeBetween((int) (0.15 * HPAS), (int) (0.35 * HPAS));
            System.out.printf("ShardingIT: HPAs per replica %s; %d of %d moved to %s when it joined (%d ms from its start to the four views)%n",
                    owned, moved.size(), HPAS, JOINER, Duration.between(joined, settled).toMillis());

            List<String> joinersHpas = hpaNames().stream().filter(h -> fourSync.get(h).equals(Set.of(JOINER))).toList();
            Window stopWindow = drop(admin, ns, winStop); // owned by the fourth: its window runs while it is stopped
            Instant resumed = stopPastItsLease(kube, ns, release, admin, replicas, joinersHpas);
            killOne(kube, ns, statusWrites, admin, replicas, joinersHpas);
            await().atMost(Waits.STATE).until(() -> scale(admin, ns, winJoin) == 1 && scale(admin, ns, winStop) == 1);
            keptAcrossHandovers(kube, ns, release, joinWindow, JOINER::equals, joined);
            keptAcrossHandovers(kube, ns, release, stopWindow, p -> !JOINER.equals(p), stopWindow.dropped());
            noTwoWriters(kube, statusWrites.and(e -> !(JOINER.equals(e.podName()) && !e.received().isBefore(resumed)
                    && e.received().isBefore(resumed.plus(PERIOD)))));
        } finally {
            replicas.values().forEach(p -> p.stop(Duration.ofSeconds(10)));
        }
    }

    /**
     * The fourth replica, busy writing the statuses of its HPAs (retargeted), is SIGSTOPped until the others acted on
     * the three alone and wrote those statuses, then SIGCONTinued and left to rejoin. From the audit log (the API
     * server's clock for every timestamp): its Lease expired, at the earliest, a lease duration after the last renewal
     * the API server received before it resumed (no other could see the Lease change before it was received); it could
     * own an HPA again, at the earliest, once another replica wrote its Lease after the first renewal that followed the
     * resumption (an HPA it owns on the ring of four is another's on the ring of three until that other publishes the
     * four). No write of it (but its Lease) may succeed in between; refused ones (409) are its fencing at work.
     */
    private Instant stopPastItsLease(KubeControlPlane kube, TestNamespace ns, ChartRelease release, KubernetesClient admin,
                                  Map<String, ChildProcess> replicas, List<String> itsHpas) {
        retarget(admin, ns, itsHpas, 3);
        ChildProcess joiner = replicas.get(JOINER);
        joiner.pause();
        Instant stopped = Instant.now();
        awaitViews(admin, replicas, PODS, PODS);
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(unobserved(admin, ns)).isZero());
        joiner.resume();
        Instant resumed = Instant.now();
        awaitViews(admin, replicas, ALL, ALL);

        Predicate<AuditEvent> ok = e -> e.code() >= 200 && e.code() < 300;
        List<AuditEvent> renewals = kube.audit().events(AuditEvent.Filter.all().namespace(RELEASE).resource("leases").writes().and(ok))
                .stream().sorted(Comparator.comparing(AuditEvent::received)).toList();
        Instant lastRenewal = renewals.stream().filter(e -> JOINER.equals(e.podName()) && e.received().isBefore(resumed))
                .map(AuditEvent::received).max(Instant::compareTo).orElseThrow();
        Instant expired = lastRenewal.plus(LEASE);
        AuditEvent rejoined = renewals.stream().filter(e -> JOINER.equals(e.podName()) && !e.received().isBefore(resumed)).findFirst().orElseThrow();
        Instant mayOwn = renewals.stream().filter(e -> !JOINER.equals(e.podName()) && e.received().isAfter(rejoined.completed()))
                .map(AuditEvent::received).findFirst().orElseThrow();
        List<AuditEvent> inBetween = kube.audit().events(AuditEvent.Filter.all().user(release.user()).pod(JOINER).writes()).stream()
                .filter(e -> !"leases".equals(e.resource()) && !e.completed().isBefore(expired) && e.received().isBefore(mayOwn)).toList();
        // per HPA: its status is the resumed replica's to write only once its owner on the ring of three wrote its Lease
        // after the rejoining renewal (published the four); its first syncs come at once, their slots having passed
        List<String> early = new ArrayList<>();
        for (AuditEvent e : kube.audit().events(ns.audit().user(release.user()).pod(JOINER).resource("horizontalpodautoscalers").writes()
                .since(resumed).before(resumed.plus(PERIOD)).and(ok))) {
            String before = Ring.owner(key(ns, e.name()), PODS);
            if (renewals.stream().noneMatch(r -> before.equals(r.podName()) && r.received().isAfter(rejoined.completed()) && r.received().isBefore(e.received()))) {
                early.add(e.name() + " at " + e.received() + " before " + before + " published");
            }
        }
        System.out.printf("ShardingIT: %s stopped %d ms after its last renewal, resumed %d ms after, renewed %d ms after that, could own again"
                        + " %d ms later; writes of it between its Lease's expiry and then: %d succeeded, %d refused %s%n", JOINER,
                Duration.between(lastRenewal, stopped).toMillis(), Duration.between(stopped, resumed).toMillis(),
                Duration.between(resumed, rejoined.received()).toMillis(), Duration.between(rejoined.received(), mayOwn).toMillis(),
                inBetween.stream().filter(ok).count(), inBetween.stream().filter(ok.negate()).count(),
                inBetween.stream().map(e -> e.verb() + " " + e.resource() + "/" + e.subresource() + " " + e.code()).toList());
        assertThat(resumed).as("resumed after its Lease expired").isAfter(expired);
        assertThat(inBetween).as("its writes that succeeded after its Lease expired, before it could own an HPA again").filteredOn(ok).isEmpty();
        assertThat(early).as("HPAs it wrote before their owner on the ring of three could have handed them back").isEmpty();
        return resumed;
    }

    /**
     * The fourth replica is SIGKILLed (no Lease release) and every HPA retargeted, its own first: none of its HPAs is
     * written by another before its Lease expired (a lease duration after its last renewal), and each within the later
     * of that expiry and the HPA's retargeting (300 patches take seconds on a loaded machine) plus two retry periods
     * (the others see a renewal up to a retry period late; the claim takes one step) and a period.
     */
    private void killOne(KubeControlPlane kube, TestNamespace ns, AuditEvent.Filter statusWrites, KubernetesClient admin,
                         Map<String, ChildProcess> replicas, List<String> itsHpas) {
        replicas.get(JOINER).kill();
        Instant killed = Instant.now();
        List<String> itsFirst = new ArrayList<>(itsHpas);
        hpaNames().stream().filter(h -> !itsHpas.contains(h)).forEach(itsFirst::add);
        Map<String, Instant> retargeted = retarget(admin, ns, itsFirst, 4);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            PODS.forEach(p -> replicas.get(p).checkAlive());
            assertThat(unobserved(admin, ns)).isZero();
        });
        Map<String, Instant> takenOver = new HashMap<>();
        for (AuditEvent e : kube.audit().events(statusWrites.since(killed))) {
            if (itsHpas.contains(e.name()) && !JOINER.equals(e.podName())) {
                takenOver.merge(e.name(), e.received(), (a, b) -> a.isBefore(b) ? a : b);
            }
        }
        assertThat(takenOver.keySet()).as("the killed replica's HPAs written by another after the kill").containsExactlyInAnyOrderElementsOf(itsHpas);
        Instant first = takenOver.values().stream().min(Instant::compareTo).orElseThrow();
        Instant last = takenOver.values().stream().max(Instant::compareTo).orElseThrow();
        Instant lastRenewal = kube.audit().events(AuditEvent.Filter.all().namespace(RELEASE).resource("leases").writes().pod(JOINER))
                .stream().filter(e -> e.code() == 200 || e.code() == 201).map(AuditEvent::received).max(Instant::compareTo).orElseThrow();
        System.out.printf("ShardingIT: %s killed %d ms after its last Lease renewal; its %d HPAs retargeted %d to %d ms"
                        + " after the kill, written by the others %d to %d ms after it%n", JOINER, Duration.between(lastRenewal, killed).toMillis(),
                itsHpas.size(), Duration.between(killed, retargeted.get(itsFirst.get(0))).toMillis(),
                Duration.between(killed, retargeted.get(itsFirst.get(itsHpas.size() - 1))).toMillis(),
                Duration.between(killed, first).toMillis(), Duration.between(killed, last).toMillis());
        Instant expired = lastRenewal.plus(LEASE);
        assertThat(first).as("the first of its HPAs written by another, not before its Lease expired").isAfterOrEqualTo(expired);
        // the others count it gone a lease duration after they saw its last renewal (up to a retry period after it was
        // made), then claim in one step (drain, publish, read: a retry period more); a gained HPA keeps its slot in the period
        Duration claim = RETRY.multipliedBy(2);
        assertThat(takenOver.entrySet()).as("the killed replica's HPAs written by another later than its Lease's expiry (or their"
                        + " retargeting, when later), a claim step and a period")
                .filteredOn(e -> e.getValue().isAfter(later(expired, retargeted.get(e.getKey())).plus(claim).plus(PERIOD))).isEmpty();
    }

    /**
     * The HPA was scaled down (4 -> 1) no earlier than the window after its last high recommendation, by a replica
     * that synced it first after {@code handover} (the new owner, matched by {@code newOwner}), and earlier than a window
     * after that first sync: a new owner that started afresh would have kept the count for a window from then.
     */
    private void keptAcrossHandovers(KubeControlPlane kube, TestNamespace ns, ChartRelease release, Window w, Predicate<String> newOwner, Instant handover) {
        AuditEvent down = kube.audit().events(ns.audit().resource("deployments").subresource("scale").name(w.hpa()).verb("update", "patch").code(200)
                .since(w.dropped())).stream().min(Comparator.comparing(AuditEvent::received)).orElseThrow();
        // a sync of it queries its pods' metrics (its Deployment's scale comes from the informer's cache)
        List<AuditEvent> syncs = kube.audit().events(ns.audit().user(release.user()).since(w.dropped()).before(down.received())).stream()
                .filter(e -> e.isPodMetricsQuery() && URLDecoder.decode(e.requestUri(), StandardCharsets.UTF_8).contains("app=" + w.hpa())).toList();
        Instant firstSync = syncs.stream().filter(e -> !e.received().isBefore(handover) && e.podName() != null && newOwner.test(e.podName()))
                .map(AuditEvent::received).min(Instant::compareTo).orElseThrow(() -> new AssertionError(w.hpa() + " not synced by its new owner before its scale-down"));
        List<String> owners = new ArrayList<>();
        syncs.stream().map(AuditEvent::podName).forEach(p -> {
            if (owners.isEmpty() || !owners.get(owners.size() - 1).equals(p)) {
                owners.add(p);
            }
        });
        System.out.printf("ShardingIT: %s (a %d s window) synced by %s after its load dropped; scaled down by %s %d ms after its last high"
                        + " recommendation, %d ms after the new owner's first sync%n", w.hpa(), WINDOW.toSeconds(), owners, down.podName(),
                Duration.between(w.lastHigh(), down.received()).toMillis(), Duration.between(firstSync, down.received()).toMillis());
        assertThat(down.received()).as("%s's scale-down, a window after its last high recommendation", w.hpa())
                .isAfterOrEqualTo(w.lastHigh().plus(WINDOW).minusMillis(200));
        assertThat(down.received()).as("%s's scale-down, before a window from its new owner's first sync", w.hpa())
                .isBefore(firstSync.plus(WINDOW));
    }

    /**
     * Nowhere in the log is an HPA's status written by two replicas less than a period apart (but for the resumed
     * replica's first period, checked per HPA above).
     */
    private static void noTwoWriters(KubeControlPlane kube, Predicate<AuditEvent> statusWrites) {
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
    }

    private static ChildProcess start(KubeControlPlane kube, TestNamespace ns, ChartRelease release, String pod) {
        return ControllerProcess.start(pod, release.kubeconfigForPod(pod), kube.directory().resolve("logs/" + ns.name() + "-" + pod + ".log"),
                "--namespace=" + ns.name(), "--hpa-apis=autoscaling/v2", "--sharding", "--leader-elect-resource-namespace=" + RELEASE,
                "--leader-elect-lease-duration=" + LEASE.toMillis() + "ms", "--leader-elect-renew-deadline=" + RENEW_DEADLINE.toMillis() + "ms",
                "--leader-elect-retry-period=" + RETRY.toMillis() + "ms", "--horizontal-pod-autoscaler-sync-period=" + PERIOD.toMillis() + "ms");
    }

    /** Waits until each of {@code holders} publishes {@code members} as its view (the running replicas alive meanwhile). */
    private static void awaitViews(KubernetesClient admin, Map<String, ChildProcess> replicas, List<String> holders, List<String> members) {
        String view = String.join(",", members);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            replicas.values().forEach(ChildProcess::checkAlive);
            Map<String, String> views = views(admin);
            assertThat(holders).as("members acting on %s, of %s", view, views).allMatch(h -> view.equals(views.get(h)));
        });
    }

    /** The load of a window HPA drops (it recommends 1, its window holds 4); returns once the drop is kept. */
    private static Window drop(KubernetesClient admin, TestNamespace ns, String hpa) {
        ns.metrics().podUsage("app=" + hpa, "10m", "64Mi");
        Instant dropped = Instant.now();
        await().atMost(Waits.STATE).until(() -> KeptHistories.runInProgress(admin, ns.name(), hpa) == 1);
        return new Window(hpa, dropped, KeptHistories.lastAbove(admin, ns.name(), hpa, 1));
    }

    private static HpaKey key(TestNamespace ns, String hpa) {
        return HpaKey.of(HpaKey.BUILTIN_GROUP, ns.name(), hpa);
    }

    /** The first name {@code prefix + i} that the fourth replica owns on the ring of four (the others, on the ring of three). */
    private static String ownedByJoiner(TestNamespace ns, String prefix) {
        return IntStream.range(0, 100).mapToObj(i -> prefix + i).filter(n -> JOINER.equals(Ring.owner(key(ns, n), ALL))).findFirst().orElseThrow();
    }

    private static HorizontalPodAutoscaler hpa(String name) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(target(name, 0)).endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(5).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec().build();
    }

    private static HorizontalPodAutoscaler windowHpa(String name) {
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(name).endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric()
                .withNewBehavior().withNewScaleDown().withStabilizationWindowSeconds((int) WINDOW.toSeconds()).endScaleDown().endBehavior()
                .endSpec().build();
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

    private static int scale(KubernetesClient admin, TestNamespace ns, String deployment) {
        return admin.apps().deployments().inNamespace(ns.name()).withName(deployment).get().getSpec().getReplicas();
    }

    /** Of the 300 HPAs, those whose status does not name their current target yet. */
    private static long unobserved(KubernetesClient admin, TestNamespace ns) {
        Set<String> names = Set.copyOf(hpaNames());
        return admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).list().getItems().stream()
                .filter(h -> names.contains(h.getMetadata().getName()))
                .filter(h -> h.getStatus() == null || h.getStatus().getConditions() == null || h.getStatus().getConditions().stream()
                        .noneMatch(c -> c.getMessage() != null && c.getMessage().contains("\"" + h.getSpec().getScaleTargetRef().getName() + "\"")))
                .count();
    }

    /** Each member's published view, by holder. */
    private static Map<String, String> views(KubernetesClient admin) {
        Map<String, String> views = new HashMap<>();
        for (Lease lease : admin.leases().inNamespace(RELEASE).withLabel(MemberLease.MEMBER_LABEL).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            views.put(lease.getSpec().getHolderIdentity(), annotations == null ? "" : annotations.getOrDefault(MemberLease.VIEW_ANNOTATION, ""));
        }
        return views;
    }

    /** Who synced each of the 300 HPAs since then: the replicas that read its (missing) target's scale. */
    private static Map<String, Set<String>> syncers(KubeControlPlane kube, TestNamespace ns, ChartRelease release, Instant since) {
        return writers(kube.audit().events(ns.audit().user(release.user()).resource("deployments").subresource("scale").verb("get").since(since))
                .stream().filter(e -> e.name() != null && e.name().contains("-target-")).toList(), e -> e.name().substring(0, e.name().indexOf("-target-")));
    }

    private static Map<String, Set<String>> writers(List<AuditEvent> writes) {
        return writers(writes, AuditEvent::name);
    }

    private static Map<String, Set<String>> writers(List<AuditEvent> events, java.util.function.Function<AuditEvent, String> hpa) {
        Map<String, Set<String>> by = new HashMap<>();
        events.forEach(e -> by.computeIfAbsent(hpa.apply(e), k -> new TreeSet<>()).add(e.podName()));
        return by;
    }
}
