package io.hpacontroller.controller;

import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@code --sharding} each replica syncs a share of the HPAs, yet its AmbiguousSelector check must see every HPA's
 * selector, as upstream's single leader does: two HPAs on one target owned by two replicas would both scale it.
 */
class ShardedSelectorsTest extends LiveTestBase {

    /** Claims the HPAs named (of namespace {@link #NS}), as {@code ShardClaims} would from a ring. */
    private static final class Claims implements SyncClaims {
        volatile Set<String> names;
        private final Set<HpaKey> held = ConcurrentHashMap.newKeySet();
        /** Whether the queue holds only the HPAs claimed ({@code ShardClaims}), or every HPA. */
        private final boolean queuesOwnOnly;

        Claims(Set<String> names) {
            this(names, false);
        }

        Claims(Set<String> names, boolean queuesOwnOnly) {
            this.names = names;
            this.queuesOwnOnly = queuesOwnOnly;
        }

        @Override
        public boolean queues(HpaKey key) {
            return !queuesOwnOnly || names.contains(key.name());
        }

        @Override
        public boolean begin(HpaKey key, long takenAt) {
            boolean mine = names.contains(key.name());
            if (mine) {
                held.add(key);
            }
            return mine;
        }

        @Override
        public void end(HpaKey key) {
        }

        @Override
        public boolean letGo(HpaKey key) {
            return held.remove(key);
        }
    }

    @Test
    void twoHpasOnOneTargetOwnedByTwoReplicasAreBothAmbiguousAlsoAfterAHandover() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        create(hpa(NS, "web-1", "apps/v1", "Deployment", "web", 1, 8, cpuUtilization(50)));
        create(hpa(NS, "web-2", "apps/v1", "Deployment", "web", 1, 8, cpuUtilization(50)));
        Claims a = new Claims(Set.of("web-1", "web-2"));
        Claims b = new Claims(Set.of());
        HorizontalController other = new HorizontalController(cluster.newClient(), LiveFixtures.fastOptions(), Clock.systemUTC(),
                WriteGate.alwaysOpen());
        List<SyncReport> otherSyncs = new CopyOnWriteArrayList<>();
        other.claimThrough(b);
        other.addListener(otherSyncs::add);
        try {
            other.start(Waits.STATE);
            startControllerClaiming(a);
            await().atMost(Waits.STATE).untilAsserted(() -> {
                assertThat(condition(readHpa("web-1"), "ScalingActive")).isEqualTo("False/AmbiguousSelector");
                assertThat(condition(readHpa("web-2"), "ScalingActive")).isEqualTo("False/AmbiguousSelector");
            });
            // as upstream, an HPA's first sync may come before any other HPA's selector is recorded: it may scale once
            int replicasWhileAmbiguous = replicas("web");

            // web-2 moves to the other replica: this one forgets what it kept of it, but not its selector
            a.names = Set.of("web-1");
            b.names = Set.of("web-2");
            await().atMost(Waits.STATE).until(() -> otherSyncs.stream()
                    .filter(r -> r.key().name().equals("web-2") && r.outcome() != null).count() >= 3);
            awaitMoreSyncs("web-1", 3);
            assertThat(syncs.stream().filter(r -> r.outcome() != null).map(r -> r.key().name()).distinct())
                    .as("each replica synced its own HPA only, this one web-2 before the handover").contains("web-1");
            assertThat(otherSyncs.stream().filter(r -> r.outcome() != null).map(r -> r.key().name()).distinct()).containsOnly("web-2");
            assertThat(condition(readHpa("web-1"), "ScalingActive")).isEqualTo("False/AmbiguousSelector");
            assertThat(condition(readHpa("web-2"), "ScalingActive")).isEqualTo("False/AmbiguousSelector");
            assertThat(replicas("web")).as("neither scaled the shared target since").isEqualTo(replicasWhileAmbiguous);
        } finally {
            other.close();
        }
    }

    @Test
    void anotherReplicasHpaNeverQueuedHereStillCountsWhenItsTargetsSelectorChanges() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "other", 1)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        create(hpa(NS, "web-1", "apps/v1", "Deployment", "web", 1, 8, cpuUtilization(50)));
        create(hpa(NS, "other-1", "apps/v1", "Deployment", "other", 1, 8, cpuUtilization(50)));
        startControllerClaiming(new Claims(Set.of("web-1"), true)); // other-1 is another replica's: not in this queue
        await().atMost(Waits.STATE).until(() -> condition(readHpa("web-1"), "ScalingActive").startsWith("True/"));
        assertThat(controller.queue().isTracked(HpaKey.of(readHpa("other-1")))).isFalse();

        // the other replica's HPA's target now selects web's pods: this replica's HPA must stand back, as upstream's would
        client.apps().deployments().inNamespace(NS).withName("other").edit(d -> {
            d.getSpec().getSelector().setMatchLabels(Map.of("app", "web"));
            return d;
        });
        await().atMost(Waits.STATE).until(() -> condition(readHpa("web-1"), "ScalingActive").equals("False/AmbiguousSelector"));
        assertThat(syncs.stream().filter(r -> r.outcome() != null).map(r -> r.key().name()).distinct()).containsOnly("web-1");
    }

    private void startControllerClaiming(SyncClaims claims) throws InterruptedException {
        controller = new HorizontalController(cluster.newClient(), LiveFixtures.fastOptions(), Clock.systemUTC(), WriteGate.alwaysOpen());
        controller.claimThrough(claims);
        controller.addListener(syncs::add);
        controller.start(Waits.STATE);
    }
}
