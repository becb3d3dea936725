package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.hpacontroller.live.LiveFixtures.cpuUtilization;
import static io.hpacontroller.live.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sync that comes before the informer holds the controller's own last status write (an HPA's first slot
 * right after its immediate sync) decides from the API's HPA, not from the cached one without that status;
 * once the cache holds the written version, syncs read the cache again.
 */
class HpaStatusUpdaterTest extends LiveTestBase {

    private KubernetesClient kube;
    private HpaStatusUpdater statuses;

    @BeforeEach
    void anUpdater() {
        kube = cluster.newClient();
        statuses = new HpaStatusUpdater(new KubeApi(kube, Duration.ofSeconds(5)), WriteGate.alwaysOpen());
    }

    @AfterEach
    void closeClient() {
        kube.close();
    }

    private long hpaReads() {
        return cluster.count("GET", p -> p.endsWith("/horizontalpodautoscalers/web"));
    }

    @Test
    void untilTheCacheHoldsOurStatusWriteTheHpaIsReadFromTheApi() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        HorizontalPodAutoscaler cached = readHpa("web"); // what the informer holds: no status yet
        assertThat(statuses.current(cached)).as("nothing written: the cache is current").isSameAs(cached);

        statuses.write(cached, new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        long reads = hpaReads();
        HorizontalPodAutoscaler decidedFrom = statuses.current(cached);
        assertThat(decidedFrom.getStatus()).as("the status just written, not the cache's none").isNotNull();
        assertThat(decidedFrom.getStatus().getDesiredReplicas()).isEqualTo(4);
        assertThat(hpaReads()).isEqualTo(reads + 1);

        HorizontalPodAutoscaler caughtUp = readHpa("web"); // the informer's next event: the written version
        reads = hpaReads();
        assertThat(statuses.current(caughtUp)).isSameAs(caughtUp);
        assertThat(statuses.current(caughtUp)).isSameAs(caughtUp);
        assertThat(hpaReads()).as("no read once the cache holds the write").isEqualTo(reads);
    }

    @Test
    void aForgottenHpaIsReadFromTheCache() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        HorizontalPodAutoscaler cached = readHpa("web");
        statuses.write(cached, new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        statuses.forget(NS + "/web");
        assertThat(statuses.current(cached)).isSameAs(cached);
    }
}
