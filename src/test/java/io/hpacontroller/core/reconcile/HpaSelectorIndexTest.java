package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ScaleTarget;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;

class HpaSelectorIndexTest {

    private final HpaSelectorIndex index = new HpaSelectorIndex();

    private static PodInfo pod(String name, Map<String, String> labels) {
        return new PodInfo(name, Labels.of(labels), PodPhase.RUNNING, ReadyStatus.TRUE, 0, 0, false, new ContainerInfo[0], null);
    }

    private static final long NOW = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();

    /** A scale of 2 selecting app=web, whose two pods use {@code milliCpu} each. */
    private static FakeCluster twoPodsUsing(long milliCpu) {
        FakeCluster world = new FakeCluster();
        world.scale = new ScaleTarget(2, 2, "app=web", "1");
        world.podUsage = Pods.cpuUsage(NOW, milliCpu, milliCpu);
        return world;
    }

    /** Two Running, Ready pods labelled app=web, started an hour ago, requesting 1 CPU each. */
    private static List<PodInfo> twoRunningPods() {
        Labels web = Labels.of(Map.of("app", "web"));
        return List.of(Pods.ready("pod-0", web, 1000, NOW), Pods.ready("pod-1", web, 1000, NOW));
    }

    private void register(String... keys) {
        for (String key : keys) {
            index.register(HpaKey.parse(key), key.substring(0, key.indexOf('/')));
        }
    }

    @Test
    void onlyRegisteredHpasHaveTheirSelectorRecorded() {
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        register("ns/web");
        assertThat(index.controllers(HpaKey.parse("ns/gone"), "ns", Selector.parse("app=web"), pods).named()).as("never registered (or deleted)").isEmpty();
        assertThat(index.controllers(HpaKey.parse("ns/web"), "ns", Selector.parse("app=web"), pods).named()).containsExactly("ns/web");
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void aReconcileStillRunningWhenItsHpaIsDeletedDoesNotRegisterItAgain() throws Exception {
        FakeCluster world = twoPodsUsing(500);
        List<PodInfo> pods = twoRunningPods();
        CountDownLatch listing = new CountDownLatch(1);
        CountDownLatch deleted = new CountDownLatch(1);
        PodSource podsOfOld = (namespace, selector) -> {
            listing.countDown();
            try {
                assertThat(deleted.await(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return pods;
        };
        HistoryStore histories = new HistoryStore();
        Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
        Reconciler deletedOne = new Reconciler(ControllerConfig.defaults(),
                new Ports(world, podsOfOld, world, world, world, HistoryWriter.NONE, index), histories, clock);
        HorizontalPodAutoscaler old = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        old.getMetadata().setName("old");
        register("default/old", "default/new");

        AtomicReference<ReconcileOutcome> outcome = new AtomicReference<>();
        Thread sync = new Thread(() -> outcome.set(deletedOne.reconcile(old)), "reconcile-of-old");
        sync.start();
        assertThat(listing.await(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        deletedOne.forget(key("default/old")); // what the informer's delete handler does, while the reconcile runs
        deleted.countDown();
        sync.join(Waits.STATE.toMillis());
        assertThat(outcome.get()).isNotNull();

        assertThat(index.size()).as("only the HPA that still exists is registered").isEqualTo(1);
        HorizontalPodAutoscaler successor = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        successor.getMetadata().setName("new");
        world.pods = pods;
        ReconcileOutcome next = new Reconciler(ControllerConfig.defaults(), Ports.of(world, index), histories, clock)
                .reconcile(successor);
        assertThat(next.status().getConditions()).as("the deleted HPA no longer claims the pods")
                .noneMatch(c -> "AmbiguousSelector".equals(c.getReason()));
        assertThat(next.errorMessage()).isNull();
    }

    @Test
    void aSyncParsesItsTargetsSelectorTextOnce() {
        FakeCluster world = twoPodsUsing(900);
        List<PodInfo> pods = twoRunningPods();
        List<Selector> listed = new ArrayList<>();
        PodSource counting = (namespace, selector) -> {
            listed.add(selector);
            return pods;
        };
        Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
        Reconciler reconciler = new Reconciler(ControllerConfig.defaults(),
                new Ports(world, counting, world, world, world, HistoryWriter.NONE, index), new HistoryStore(), clock);
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        register("default/" + hpa.getMetadata().getName());

        ReconcileOutcome outcome = reconciler.reconcile(hpa);

        assertThat(outcome.errorMessage()).isNull();
        assertThat(outcome.status().getDesiredReplicas()).as("90 %% of the request against a 50 %% target").isEqualTo(4);
        assertThat(listed).as("the ownership check's listing, then the metric's after its samples were fetched, as upstream").hasSize(2);
        assertThat(reconciler.reconcile(hpa).errorMessage()).isNull();
        assertThat(listed).hasSize(4).as("the selector text is parsed once").allSatisfy(selector -> assertThat(selector).isSameAs(listed.get(0)));
    }

    @Test
    void anHpaAloneOnItsPodsControlsThem() {
        register("ns/web", "ns/api");
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        assertThat(index.controllers(HpaKey.parse("ns/web"), "ns", Selector.parse("app=web"), pods).named()).containsExactly("ns/web");
        assertThat(index.controllers(HpaKey.parse("ns/api"), "ns", Selector.parse("app=api"), List.of(pod("api-1", Map.of("app", "api")))).named())
                .containsExactly("ns/api");
    }

    @Test
    void overlappingSelectorsAreAmbiguousEvenWhenTheyDiffer() {
        register("ns/by-app", "ns/by-tier");
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web", "tier", "front")));
        index.controllers(HpaKey.parse("ns/by-app"), "ns", Selector.parse("app=web"), pods);
        List<String> controllers = index.controllers(HpaKey.parse("ns/by-tier"), "ns", Selector.parse("tier in (front,back)"), pods).named();
        assertThat(controllers).containsExactly("ns/by-app", "ns/by-tier");
        assertThat(index.controllers(HpaKey.parse("ns/by-app"), "ns", Selector.parse("app=web"), pods).named()).hasSize(2);
    }

    @Test
    void aSelectorWithoutEqualityRequirementsIsStillChecked() {
        register("ns/exists", "ns/web");
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        index.controllers(HpaKey.parse("ns/exists"), "ns", Selector.parse("app"), pods);
        assertThat(index.controllers(HpaKey.parse("ns/web"), "ns", Selector.parse("app=web"), pods).named()).containsExactly("ns/exists", "ns/web");
    }

    @Test
    void namespacesDoNotMixAndForgettingReleasesThePods() {
        register("a/web", "b/web", "a/web-2");
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        index.controllers(HpaKey.parse("a/web"), "a", Selector.parse("app=web"), pods);
        assertThat(index.controllers(HpaKey.parse("b/web"), "b", Selector.parse("app=web"), pods).named()).containsExactly("b/web");
        index.controllers(HpaKey.parse("a/web-2"), "a", Selector.parse("app=web"), pods);
        assertThat(index.controllers(HpaKey.parse("a/web"), "a", Selector.parse("app=web"), pods).named()).hasSize(2);
        index.forget(HpaKey.parse("a/web-2"));
        assertThat(index.controllers(HpaKey.parse("a/web"), "a", Selector.parse("app=web"), pods).named()).containsExactly("a/web");
    }

    @Test
    void aChangedSelectorReplacesTheOldOne() {
        register("ns/h", "ns/web");
        List<PodInfo> web = List.of(pod("web-1", Map.of("app", "web")));
        index.controllers(HpaKey.parse("ns/h"), "ns", Selector.parse("app=web"), web);
        index.controllers(HpaKey.parse("ns/h"), "ns", Selector.parse("app=api"), List.of());
        assertThat(index.controllers(HpaKey.parse("ns/web"), "ns", Selector.parse("app=web"), web).named()).containsExactly("ns/web");
    }

    @Test
    void twoThousandHpasOnOnePodAreCountedAndOnlyTheFirstThreeByKeyNamed() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            keys.add(String.format("ns/hpa-%04d", i));
        }
        Collections.shuffle(keys, new Random(35));
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web", "tier", "front")));
        for (String key : keys) {
            register(key);
            index.controllers(HpaKey.parse(key), "ns", Selector.parse("app=web"), List.of());
        }
        register("ns/z-by-tier", "ns/other");
        index.controllers(HpaKey.parse("ns/z-by-tier"), "ns", Selector.parse("tier=front"), List.of());
        index.controllers(HpaKey.parse("ns/other"), "ns", Selector.parse("app=api"), List.of());

        SelectorOwnership.Controllers controllers = index.controllers(HpaKey.parse("ns/hpa-1999"), "ns", Selector.parse("app=web"), pods);

        assertThat(controllers.count()).as("the 2,000 on app=web and the one on tier=front, not the one on app=api").isEqualTo(2001);
        assertThat(controllers.named()).containsExactly("ns/hpa-0000", "ns/hpa-0001", "ns/hpa-0002");
        assertThat(controllers.allNamed()).isFalse();
        index.forget(HpaKey.parse("ns/hpa-0001"));
        assertThat(index.controllers(HpaKey.parse("ns/z-by-tier"), "ns", Selector.parse("tier=front"), pods))
                .isEqualTo(new SelectorOwnership.Controllers(2000, List.of("ns/hpa-0000", "ns/hpa-0002", "ns/hpa-0003")));
        assertThat(index.controllers(HpaKey.parse("ns/z-by-tier"), "ns", Selector.parse("tier=front"), pods, key -> key.toString().startsWith("ns/z")))
                .as("only those counted (the shadow's check counts autoscaling/v2 HPAs only)")
                .isEqualTo(new SelectorOwnership.Controllers(1, List.of("ns/z-by-tier")));
    }

    @Test
    void anAmbiguousSelectorMessageNamesAtMostThreeHpasAndStaysTheSameWhenMoreJoin() {
        FakeCluster world = twoPodsUsing(500);
        world.pods = twoRunningPods();
        Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
        Reconciler reconciler = new Reconciler(ControllerConfig.defaults(), Ports.of(world, index), new HistoryStore(), clock);
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 10, Specs.cpuUtilization(50));
        register("default/web", "default/web-2");
        index.controllers(HpaKey.parse("default/web-2"), "default", Selector.parse("app=web"), List.of());

        ReconcileOutcome two = reconciler.reconcile(hpa);
        assertThat(two.errorMessage()).as("two HPAs: upstream's message, naming both")
                .endsWith("pods by selector app=web are controlled by multiple HPAs: [default/web, default/web-2]");

        for (int i = 0; i < 2000; i++) {
            String key = "default/mirror-" + i;
            register(key);
            index.controllers(HpaKey.parse(key), "default", Selector.parse("app=web"), List.of());
        }
        ReconcileOutcome many = reconciler.reconcile(hpa);
        String bounded = "pods by selector app=web are controlled by multiple HPAs: [default/mirror-0, default/mirror-1, default/mirror-10] and more";
        assertThat(many.errorMessage()).endsWith(": " + bounded);
        assertThat(world.lastStatus().getConditions()).anySatisfy(c -> assertThat(c.getReason() + ": " + c.getMessage())
                .isEqualTo("AmbiguousSelector: " + bounded));
        assertThat(world.eventMessages("AmbiguousSelector")).last().isEqualTo(bounded);
        int writes = world.statusWrites.size();
        hpa.setStatus(world.lastStatus()); // as the informer would deliver it

        register("default/mirror-2000");
        index.controllers(HpaKey.parse("default/mirror-2000"), "default", Selector.parse("app=web"), List.of());
        assertThat(reconciler.reconcile(hpa).errorMessage()).as("one more HPA on the pods changes nothing in the message")
                .isEqualTo(many.errorMessage());
        assertThat(world.statusWrites).as("so the status is not written again").hasSize(writes);
    }
}
