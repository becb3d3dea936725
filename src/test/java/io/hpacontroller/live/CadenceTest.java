package io.hpacontroller.live;

import io.hpacontroller.core.reconcile.ReconcileOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.hpacontroller.live.LiveFixtures.deployment;
import static io.hpacontroller.live.LiveFixtures.externalAverage;
import static io.hpacontroller.live.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The sync cadence at the production ratio (see {@link LiveTestBase#run}). */
class CadenceTest extends LiveTestBase {

    @Test
    void aPartlyFailingHpaIsSyncedOncePerPeriodAndScalesOneLegacyStepPerPeriod() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "200"); // 200 / 10 per pod: 20 replicas
        // the second metric does not exist: every sync is partly failed (an INTERNAL error), and upstream
        // still scales up on the first one, by at most the legacy max(2 x current, 4) per sync
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 30,
                externalAverage("queue_messages_ready", "10"), externalAverage("missing_metric", "10")));
        controllerAtProductionRatio();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);

        long slot = firstSlotSecond("web");
        List<Sync> syncs = run((int) slot + 46);

        assertThat(syncs).extracting(Sync::second).as("at once (a new HPA), then once per period at its phase, errors included")
                .containsExactly(0L, slot, slot + 15, slot + 30, slot + 45);
        assertThat(syncs).allSatisfy(s -> assertThat(s.outcome().error()).isEqualTo(ReconcileOutcome.ErrorKind.INTERNAL));
        assertThat(syncs).extracting(s -> s.outcome().rescaled() ? s.outcome().desiredReplicas() : null)
                .containsExactly(6, 12, 20, null, null);
        assertThat(replicas("web")).isEqualTo(20);
    }

    @Test
    void aSpecChangeIsSyncedAtOnceAndNothingElseSyncsEarly() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "30"); // 3 replicas at 10 each: steady
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")));
        controllerAtProductionRatio();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);
        long slot = firstSlotSecond("web");
        assertThat(run(1)).extracting(Sync::second).containsExactly(0L);

        // our own status write came back through the watch: not a reason to sync
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.hpaCount() == 1 && readHpa("web").getStatus() != null);
        var h = readHpa("web");
        h.getSpec().setMinReplicas(5);
        h.getMetadata().setGeneration(2L);
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);
        List<Sync> afterEdit = run((int) slot + 15);
        assertThat(afterEdit).extracting(Sync::second).as("at once after the edit, then at its slots: nothing else syncs early")
                .containsExactly(1L, slot, slot + 15);
        assertThat(afterEdit.get(0).outcome().desiredReplicas()).isEqualTo(5);
    }
}
