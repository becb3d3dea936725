package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Conflicts, deletion, concurrency, watch drops, status writes and ambiguous selectors in the live loop. */
class ControllerLifecycleTest extends LiveTestBase {

    @Test
    void aConflictingScaleUpdateFailsTheSyncAndALaterSyncScales() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        cluster.conflictOnNextScaleUpdates(1);
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
        long puts = cluster.count("PUT", p -> p.endsWith("/deployments/web/scale"));
        assertThat(puts).as("the conflict, then the write of a later sync").isEqualTo(2);
        assertThat(events("FailedRescale")).as("the conflict is not retried within the sync").isNotEmpty();
        assertThat(events("SuccessfulRescale")).isNotEmpty();
    }

    @Test
    void persistentConflictsEndInFailedRescaleAndNoChange() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        cluster.conflictOnNextScaleUpdates(5);
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());

        // a later sync succeeds
        await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
        // the failed one said so in the status it wrote (the next sync replaced it a sync period later) and in an event
        assertThat(syncs).anySatisfy(r -> {
            assertThat(r.outcome().rescaled()).isFalse();
            assertThat(r.outcome().status().getConditions()).anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus() + "/" + c.getReason())
                    .isEqualTo("AbleToScale=False/FailedUpdateScale"));
        });
        await().atMost(Waits.STATE).until(() -> !events("FailedRescale").isEmpty());
    }

    @Test
    void deletingAnHpaDropsItsHistoryAndStopsItsSyncs() throws Exception {
        for (String name : List.of("web", "other")) {
            client.apps().deployments().inNamespace(NS).resource(deployment(NS, name, 2)).create();
            create(hpa(NS, name, "apps/v1", "Deployment", name, 1, 4, cpuUtilization(50)));
        }
        HorizontalController c = startController(LiveFixtures.fastOptions());
        await().atMost(Waits.STATE).until(() -> c.histories().keys().contains(HpaKey.parse("demo/web")));

        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").delete();
        await().atMost(Waits.STATE).until(() -> !c.histories().keys().contains(HpaKey.parse("demo/web")) && !c.queue().isTracked(key("demo/web")));
        long syncsOfWeb = syncsOf("web");
        awaitMoreSyncs("other", 4); // the controller keeps running
        assertThat(syncsOf("web")).as("no sync of the deleted HPA").isEqualTo(syncsOfWeb);
        assertThat(c.histories().keys()).containsExactly(HpaKey.parse("demo/other"));
    }

    @Test
    void twoHpasAreReconciledConcurrently() throws Exception {
        for (String name : List.of("a", "b")) {
            client.apps().deployments().inNamespace(NS).resource(deployment(NS, name, 2)).create();
            cluster.workloads().setCpuPerPod(NS, name, "100m");
            create(hpa(NS, name, "apps/v1", "Deployment", name, 1, 6, cpuUtilization(50)));
        }
        // a slow metrics API: one worker could ask for b's metrics only after a's answer came, 3 s later
        Duration slow = Duration.ofSeconds(3);
        cluster.delay("GET", "^/apis/metrics\\.k8s\\.io/", slow, 2);
        startController(LiveFixtures.fastOptions().withWorkers(4));

        await().atMost(Waits.STATE).until(() -> replicas("a") == 6 && replicas("b") == 6);
        long firstA = firstMetricsQuery("a");
        long firstB = firstMetricsQuery("b");
        assertThat(Math.abs(firstA - firstB)).as("b's metrics were asked for before a's slow answer came: two workers at once")
                .isLessThan(slow.toNanos());
    }

    private long firstMetricsQuery(String deployment) {
        return cluster.requests().stream().filter(r -> r.method().equals("GET") && r.path().startsWith("/apis/metrics.k8s.io/")
                        && r.path().endsWith("labelSelector=app%3D" + deployment))
                .mapToLong(MockCluster.Request::atNanos).min().orElseThrow();
    }

    @Test
    void theInformerRecoversAfterTheWatchConnectionDrops() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        startController(LiveFixtures.fastOptions());
        assertThat(controller.hpaCount()).isZero();

        await().atMost(Waits.STATE).until(() -> cluster.dropWatches() > 0);
        // created while the watches were down: the informer must relist or re-watch to see it
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
        assertThat(controller.hpaCount()).isEqualTo(1);
        assertThat(controller.podCount()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void theStatusIsWrittenOnlyWhenItChanges() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "50m"); // exactly the 50% target
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());
        List<SyncReport> reports = syncs;

        await().atMost(Waits.STATE).until(() -> reports.size() >= 8);
        long written = reports.stream().filter(r -> r.outcome() != null && r.outcome().statusWritten()).count();
        assertThat(written).as("the first sync writes the status; steady syncs write nothing").isLessThanOrEqualTo(2);
        assertThat(reports).allSatisfy(r -> assertThat(r.outcome().rescaled()).isFalse());
        // a steady sync costs one API request, the metrics query: the scale and the pods come from informers
        SyncReport steady = reports.get(reports.size() - 1);
        assertThat(steady.apiCalls()).isEqualTo(1);
        assertThat(cluster.count("GET", p -> p.endsWith("/deployments/web/scale")))
                .as("only the first sync, before the Deployment informer synced, reads the scale subresource").isLessThanOrEqualTo(1);
        assertThat(replicas("web")).isEqualTo(3);
    }

    @Test
    void twoHpasOverTheSamePodsAreRefusedAsAmbiguous() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        create(hpa(NS, "web-1", "apps/v1", "Deployment", "web", 1, 8, cpuUtilization(50)));
        create(hpa(NS, "web-2", "apps/v1", "Deployment", "web", 1, 8, cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).untilAsserted(() -> {
            HorizontalPodAutoscaler h1 = readHpa("web-1");
            HorizontalPodAutoscaler h2 = readHpa("web-2");
            assertThat(condition(h1, "ScalingActive")).isEqualTo("False/AmbiguousSelector");
            assertThat(condition(h2, "ScalingActive")).isEqualTo("False/AmbiguousSelector");
            assertThat(events("AmbiguousSelector")).isNotEmpty();
        });
        assertThat(events("AmbiguousSelector").get(0).getMessage()).contains("controlled by multiple HPAs").contains("demo/web-1").contains("demo/web-2");
        // both selectors were recorded before the first sync (upstream's first sync of one counts only the HPAs synced
        // before it, so the first of the two could scale 2 to 4: 100 % of the request against a target of 50 %)
        int replicasWhileAmbiguous = 2;
        assertThat(replicas("web")).as("the first sync of either HPA counted the other").isEqualTo(replicasWhileAmbiguous);
        awaitMoreSyncs("web-1", 4);
        awaitMoreSyncs("web-2", 4);
        assertThat(replicas("web")).as("nothing scales while both HPAs claim the pods").isEqualTo(replicasWhileAmbiguous);

        // removing one HPA lets the other scale again
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web-2").delete();
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("web-1"), "ScalingActive")).isEqualTo("True/ValidMetricFound");
            assertThat(replicas("web")).isGreaterThan(replicasWhileAmbiguous);
        });
    }
}
