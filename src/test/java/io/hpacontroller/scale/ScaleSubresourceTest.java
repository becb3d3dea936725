package io.hpacontroller.scale;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.ApiDiscovery;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.controller.LiveTestBase;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The scale of a Deployment read from the informer and written through the scale subresource: the
 * write is guarded by the version of the scale the decision was made from, so a stale cache costs a
 * 409 and never a write over a newer scale; after a conflict or our own write the next read is fresh.
 */
class ScaleSubresourceTest extends LiveTestBase {

    private static final CrossVersionObjectReference WEB = new CrossVersionObjectReference("apps/v1", "Deployment", "web");

    private KubernetesClient kube;
    private WorkloadScales workloads;
    private ScaleSubresource scales;

    @BeforeEach
    void aDeploymentOfThreeInTheCache() {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        kube = cluster.newClient();
        KubeApi api = new KubeApi(kube, Duration.ofSeconds(5));
        workloads = new WorkloadScales(kube, List.of());
        scales = new ScaleSubresource(api, api, new ApiDiscovery(api, Clock.systemUTC()), WriteGate.alwaysOpen(), workloads);
        // the fake workload controller has started the pods and written status.replicas; the cache holds that version
        await().atMost(Waits.STATE).until(() -> workloads.get(NS, "apps/v1", "Deployment", "web") != null);
        awaitCacheSettled(3);
    }

    @AfterEach
    void stopInformers() {
        workloads.stop();
        kube.close();
    }

    private String deploymentVersion() {
        return client.apps().deployments().inNamespace(NS).withName("web").get().getMetadata().getResourceVersion();
    }

    private long scaleReads() {
        return cluster.count("GET", p -> p.endsWith("/deployments/web/scale"));
    }

    @Test
    void theScaleADecisionIsMadeFromCarriesTheVersionItsWriteIsGuardedBy() throws Exception {
        ScaleTarget read = scales.get(NS, WEB);
        assertThat(scaleReads()).as("read from the informer").isZero();
        assertThat(read.specReplicas()).isEqualTo(3);
        assertThat(read.resourceVersion()).as("the scale subresource's version is the Deployment's").isEqualTo(deploymentVersion());

        // kubectl scale --replicas=12 lands between our read and our write
        cluster.scaleBeforeNextScaleUpdate(12);
        assertThatThrownBy(() -> scales.update(NS, WEB, read, 6)).isInstanceOf(ApiException.Conflict.class);
        assertThat(replicas("web")).as("the decision made from 3 was not written over 12").isEqualTo(12);

        ScaleTarget next = scales.get(NS, WEB);
        assertThat(scaleReads()).as("after a conflict the next read goes to the API").isEqualTo(1);
        assertThat(next.specReplicas()).isEqualTo(12);
        assertThat(next.resourceVersion()).isEqualTo(deploymentVersion());

        // once the informer holds the version the API last returned, the cache is used again
        awaitCacheSettled(12);
        assertThat(scales.get(NS, WEB).specReplicas()).isEqualTo(12); // may read the API once more to learn the latest version
        long reads = scaleReads();
        assertThat(scales.get(NS, WEB).specReplicas()).isEqualTo(12);
        assertThat(scaleReads()).as("the cache caught up: no more reads from the API").isEqualTo(reads);
    }

    /**
     * A selector that only counts (another replica's HPA, in the AmbiguousSelector check) is read from the synced cache:
     * a missing Deployment costs no request, where a sync's read asks the API (and gets its NotFound).
     */
    @Test
    void aPeekAtAMissingDeploymentAsksNothingOfTheApi() throws Exception {
        CrossVersionObjectReference missing = new CrossVersionObjectReference("apps/v1", "Deployment", "gone");
        assertThat(scales.peek(NS, WEB).selector()).isEqualTo(scales.get(NS, WEB).selector());
        assertThat(scales.peek(NS, missing)).isNull();
        assertThat(cluster.count("GET", p -> p.endsWith("/deployments/gone/scale"))).isZero();
        assertThatThrownBy(() -> scales.get(NS, missing)).isInstanceOf(ApiException.class);
        assertThat(cluster.count("GET", p -> p.endsWith("/deployments/gone/scale"))).isEqualTo(1);
    }

    /** Waits until the fake workload controller has the pods and the cache holds the Deployment's latest version. */
    private void awaitCacheSettled(int replicas) {
        await().atMost(Waits.STATE).until(() -> {
            ScaleTarget cached = workloads.get(NS, "apps/v1", "Deployment", "web");
            return cached.statusReplicas() == replicas && cached.resourceVersion().equals(deploymentVersion());
        });
    }

    @Test
    void afterOurOwnWriteTheNextReadIsTheWrittenScale() throws Exception {
        scales.update(NS, WEB, scales.get(NS, WEB), 6);
        String written = deploymentVersion();
        ScaleTarget next = scales.get(NS, WEB);
        assertThat(next.specReplicas()).isEqualTo(6);
        assertThat(next.resourceVersion()).isEqualTo(written);
        awaitCacheSettled(6);
        assertThat(scales.get(NS, WEB).specReplicas()).isEqualTo(6);
        long reads = scaleReads();
        assertThat(scales.get(NS, WEB).specReplicas()).isEqualTo(6);
        assertThat(scaleReads()).as("the cache caught up: no more reads from the API").isEqualTo(reads);
    }

    /**
     * The reproduction through the whole controller: the scale reads 3, an External metric
     * proposes 6, someone runs {@code kubectl scale --replicas=12} before our write. The write of 6 is
     * refused (409) and the sync fails; the next sync decides from 12, under the scale-down policy.
     */
    @Test
    void aDecisionMadeFromThreeIsNotWrittenOverTwelve() throws Exception {
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "60"); // 60 / 10 per pod: 6
        HorizontalPodAutoscaler hpa = hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10"));
        hpa.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleDown().withStabilizationWindowSeconds(0)
                .addNewPolicy().withType("Pods").withValue(2).withPeriodSeconds(60).endPolicy().endScaleDown().build());
        create(hpa);
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 1);
        cluster.scaleBeforeNextScaleUpdate(12);

        long slot = firstSlotSecond("web") + 15; // its first slot a period or more after its creation
        List<Sync> syncs = run((int) slot + 1);

        assertThat(syncs).extracting(Sync::second).containsExactly(0L, slot);
        assertThat(syncs.get(0).outcome().rescaled()).isFalse();
        assertThat(syncs.get(0).outcome().currentReplicas()).isEqualTo(3);
        assertThat(syncs.get(1).outcome().currentReplicas()).as("decided from the fresh scale").isEqualTo(12);
        assertThat(syncs.get(1).outcome().desiredReplicas()).as("12 - 2 pods per minute, not 6").isEqualTo(10);
        assertThat(cluster.count("PUT", p -> p.endsWith("/deployments/web/scale"))).isEqualTo(2);
        assertThat(replicas("web")).isEqualTo(10);
        controller.flushEvents(Waits.STATE);
        assertThat(events("SuccessfulRescale")).extracting(e -> e.getMessage()).noneMatch(m -> m.startsWith("New size: 6;"));
    }

    @Test
    void aScaleWithoutAResourceVersionIsNeverWritten() {
        long writesBefore = cluster.count("PUT", p -> p.endsWith("/scale"));
        assertThatThrownBy(() -> scales.update(NS, WEB, new ScaleTarget(3, 3, "app=web", null), 6))
                .isInstanceOf(ApiException.class).hasMessageContaining("refusing to write it unguarded");
        assertThatThrownBy(() -> scales.update(NS, WEB, new ScaleTarget(3, 3, "app=web", ""), 6))
                .isInstanceOf(ApiException.class);
        assertThat(cluster.count("PUT", p -> p.endsWith("/scale"))).isEqualTo(writesBefore);
        assertThat(replicas("web")).isEqualTo(3);
    }
}
