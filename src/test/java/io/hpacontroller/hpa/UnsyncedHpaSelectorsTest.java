package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.reconcile.HpaSelectorIndex;
import io.hpacontroller.testing.Keys;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Another replica's HPA ({@code --sharding}): its pop records its selector only when something changed, yet a change
 * of the HPA, of its target's selector, or a forgetting of the key in between is always recorded. An HPA synced here is
 * primed ahead of its sync from the informers' caches alone.
 */
class UnsyncedHpaSelectorsTest {

    private static final String NS = "shop";

    /** Target name to its scale, as the workload informers hold them. */
    private final Map<String, ScaleTarget> targets = new ConcurrentHashMap<>();
    private final HpaSelectorIndex index = new HpaSelectorIndex();
    private final UnsyncedHpaSelectors unsynced = new UnsyncedHpaSelectors(scales(targets::get, name -> null), index);
    /** What the informer holds of the other replica's HPA. */
    private final AtomicReference<HorizontalPodAutoscaler> cached = new AtomicReference<>();
    private final HpaKey others = Keys.key(NS + "/others");

    /** Scales read by target name: with a request ({@code get}), and from an informer's cache alone ({@code cachedOnly}). */
    private static ScaleClient scales(Function<String, ScaleTarget> get, Function<String, ScaleTarget> cachedOnly) {
        return new ScaleClient() {
            @Override
            public ScaleTarget get(String namespace, CrossVersionObjectReference target) {
                return get.apply(target.getName());
            }

            @Override
            public ScaleTarget cachedOnly(String namespace, CrossVersionObjectReference target) {
                return cachedOnly.apply(target.getName());
            }

            @Override
            public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) {
                throw new AssertionError("read-only");
            }
        };
    }

    private static HorizontalPodAutoscaler hpa(String resourceVersion, String target) {
        return new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withNamespace(NS).withName("others").withResourceVersion(resourceVersion).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(target).endScaleTargetRef()
                .withMaxReplicas(5).endSpec()
                .build();
    }

    private static PodInfo pod(String app) {
        return new PodInfo(app + "-0", Labels.of(Map.of("app", app)), PodPhase.RUNNING, ReadyStatus.TRUE, 0, 0, false, new ContainerInfo[0], null);
    }

    /** How many HPAs other than this replica's own HPA on the pod's target select the pod (the AmbiguousSelector check). */
    private int othersOn(String app) {
        HpaKey mine = Keys.key(NS + "/mine-" + app);
        index.register(mine, NS);
        return index.controllers(mine, NS, Selector.parse("app=" + app), List.of(pod(app))).count() - 1;
    }

    private void pop() {
        unsynced.refreshOther(others, key -> cached.get());
    }

    @Test
    void aChangeOfTheTargetsSelectorOrOfTheHpaIsRecordedAtTheNextPop() {
        targets.put("web", new ScaleTarget(2, 2, "app=web", "10"));
        targets.put("api", new ScaleTarget(2, 2, "app=api", "20"));
        cached.set(hpa("1", "web"));
        pop();
        pop();
        assertThat(othersOn("web")).isEqualTo(1);

        targets.put("web", new ScaleTarget(2, 2, "app=web-v2", "11"));
        pop();
        assertThat(othersOn("web")).as("the target's new selector, same HPA").isZero();
        assertThat(othersOn("web-v2")).isEqualTo(1);

        cached.set(hpa("2", "api"));
        pop();
        assertThat(othersOn("web-v2")).as("the HPA now targets api").isZero();
        assertThat(othersOn("api")).isEqualTo(1);
    }

    /** The other replica's HPA on web, popped once here. */
    private void othersHpaOnWebPopped() {
        targets.put("web", new ScaleTarget(2, 2, "app=web", "10"));
        cached.set(hpa("1", "web"));
        pop();
    }

    @Test
    void aKeyForgottenByAHandoverIsRecordedAgainThoughNothingChanged() {
        othersHpaOnWebPopped();
        index.forget(others); // synced here for a while, then handed back: what this replica kept of it went
        assertThat(othersOn("web")).isZero();
        pop();
        assertThat(othersOn("web")).isEqualTo(1);
    }

    @Test
    void aDeletedHpaIsNotRecordedAgain() {
        othersHpaOnWebPopped();
        cached.set(null);
        index.forget(others); // the delete event
        unsynced.forget(others);
        pop();
        assertThat(othersOn("web")).isZero();

        Deque<HorizontalPodAutoscaler> lookups = new ArrayDeque<>(List.of(hpa("1", "web"))); // deleted between a pop's two lookups
        unsynced.refreshOther(others, key -> lookups.poll());
        assertThat(othersOn("web")).isZero();
    }

    @Test
    void anHpaIsPrimedFromAnInformersCacheAloneAndOnlyWhileItIsRegistered() {
        Map<String, ScaleTarget> cachedTargets = Map.of("web", new ScaleTarget(2, 2, "app=web", "10"));
        List<String> reads = new ArrayList<>();
        UnsyncedHpaSelectors priming = new UnsyncedHpaSelectors(scales(name -> {
            reads.add(name);
            return new ScaleTarget(2, 2, "app=" + name, "1");
        }, cachedTargets::get), index);

        priming.prime(hpa("1", "web"));
        assertThat(othersOn("web")).as("not registered (deleted, or not delivered yet): nothing recorded").isZero();

        index.register(others, NS);
        priming.prime(hpa("1", "web"));
        assertThat(othersOn("web")).as("its target's selector, from the cache, before its first sync").isEqualTo(1);

        priming.prime(hpa("2", "widgets")); // its target now of a kind no informer caches
        assertThat(othersOn("web")).as("left to its sync, which reads the scale: what was recorded stays").isEqualTo(1);
        assertThat(reads).as("priming never sends a request").isEmpty();
    }

    @Test
    void primingEveryCachedHpaWaitsForTheWorkloadInformersToListThenPrimesAgain() {
        AtomicBoolean listed = new AtomicBoolean();
        UnsyncedHpaSelectors priming = new UnsyncedHpaSelectors(scales(name -> {
            throw new AssertionError("priming never sends a request");
        }, name -> listed.get() ? new ScaleTarget(2, 2, "app=" + name, "10") : null), index);
        index.register(others, NS);
        AtomicInteger asked = new AtomicInteger();
        priming.primeAll(List.of(hpa("1", "web")), () -> {
            listed.compareAndSet(false, asked.incrementAndGet() == 3); // the Deployments' informer lists while it waits
            return listed.get();
        });
        assertThat(othersOn("web")).as("primed once the informer had listed").isEqualTo(1);
        assertThat(asked).hasValue(3);
    }
}
