package io.hpacontroller.live;

import io.hpacontroller.core.reconcile.ReconcileOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.hpacontroller.live.LiveFixtures.deployment;
import static io.hpacontroller.live.LiveFixtures.externalAverage;
import static io.hpacontroller.live.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.controls.ControlAnnotations;

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

        List<Sync> syncs = run(61);

        assertThat(syncs).extracting(Sync::second).as("one sync per period, errors included").containsExactly(0L, 15L, 30L, 45L, 60L);
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
        assertThat(run(5)).extracting(Sync::second).containsExactly(0L);

        // our own status write came back through the watch: not a reason to sync
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.hpaCount() == 1 && readHpa("web").getStatus() != null);
        var h = readHpa("web");
        h.getSpec().setMinReplicas(5);
        h.getMetadata().setGeneration(2L);
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);
        List<Sync> afterEdit = run(26);
        assertThat(afterEdit).extracting(Sync::second).as("at once after the edit, then one period later")
                .containsExactly(5L, 20L);
        assertThat(afterEdit.get(0).outcome().desiredReplicas()).isEqualTo(5);
    }

    private static HorizontalPodAutoscaler annotated(HorizontalPodAutoscaler hpa, String name, String value) {
        hpa.getMetadata().setAnnotations(new HashMap<>(Map.of(name, value)));
        return hpa;
    }

    private static List<Long> secondsOf(List<Sync> syncs, String hpa) {
        return syncs.stream().filter(s -> s.outcome() != null && s.outcome().key().equals(NS + "/" + hpa)).map(Sync::second).toList();
    }

    @Test
    void eachHpaIsSyncedAtItsOwnPeriod() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "30");
        create(annotated(hpa(NS, "fast", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")),
                ControlAnnotations.SYNC_PERIOD, "5s"));
        create(hpa(NS, "flag", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")));
        create(annotated(hpa(NS, "slow", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")),
                ControlAnnotations.SYNC_PERIOD, "1m"));
        create(annotated(hpa(NS, "bad", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")),
                ControlAnnotations.SYNC_PERIOD, "0"));
        controllerAtProductionRatio();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 4);

        List<Sync> syncs = run(61);

        assertThat(secondsOf(syncs, "fast")).containsExactly(0L, 5L, 10L, 15L, 20L, 25L, 30L, 35L, 40L, 45L, 50L, 55L, 60L);
        assertThat(secondsOf(syncs, "flag")).containsExactly(0L, 15L, 30L, 45L, 60L);
        assertThat(secondsOf(syncs, "slow")).containsExactly(0L, 60L);
        assertThat(secondsOf(syncs, "bad")).as("an invalid period: the flag's, and the condition says why").containsExactly(0L, 15L, 30L, 45L, 60L);
        assertThat(condition(readHpa("bad"), "ScalingActive")).isEqualTo("False/InvalidAnnotation");
        assertThat(syncs.stream().filter(s -> s.outcome().key().equals(NS + "/fast")).findFirst().orElseThrow().outcome().trace()
                .controls().syncPeriodMillis()).isEqualTo(5000);
    }

    @Test
    void anAnnotationChangeIsSyncedAtOnceWithoutARestartAndOurStatusWritesAreNot() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "30");
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")));
        controllerAtProductionRatio();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);
        assertThat(run(3)).extracting(Sync::second).containsExactly(0L);
        await().atMost(Duration.ofSeconds(10)).until(() -> readHpa("web").getStatus() != null);

        // kubectl annotate: metadata only, the generation stays
        HorizontalPodAutoscaler h = readHpa("web");
        h.getMetadata().setAnnotations(Map.of(ControlAnnotations.SYNC_PERIOD, "4s"));
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);
        assertThat(run(12)).extracting(Sync::second).as("at once, then every 4 s").containsExactly(3L, 7L, 11L);

        h = readHpa("web");
        h.getMetadata().setAnnotations(Map.of(ControlAnnotations.SYNC_PERIOD, "4s", ControlAnnotations.MODE, "Suspended"));
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.queue().depth() == 1);
        List<Sync> suspended = run(1);
        assertThat(suspended).singleElement().satisfies(s -> assertThat(s.outcome().trace().controls().suspended()).isTrue());
        await().atMost(Duration.ofSeconds(10)).until(() -> "False/Suspended".equals(condition(readHpa("web"), "ScalingActive")));
        assertThat(run(8)).extracting(Sync::second).as("its own status write did not requeue it: every 4 s").containsExactly(19L, 23L);
    }
}
