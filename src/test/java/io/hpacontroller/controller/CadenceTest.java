package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
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
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 1);

        long slot = firstSlotSecond("web");
        List<Sync> syncs = run((int) slot + 61);

        assertThat(syncs).extracting(Sync::second).as("at once (a new HPA), then once per period at its phase from a period on, errors included")
                .containsExactly(0L, slot + 15, slot + 30, slot + 45, slot + 60);
        assertThat(syncs).allSatisfy(s -> assertThat(s.outcome().error()).isEqualTo(ReconcileOutcome.ErrorKind.INTERNAL));
        assertThat(syncs).extracting(s -> s.outcome().rescaled() ? s.outcome().desiredReplicas() : null)
                .containsExactly(6, 12, 20, null, null);
        assertThat(replicas("web")).isEqualTo(20);
    }

    @Test
    void aSpecChangeIsSyncedAPeriodAfterTheLastSyncAndNothingElseSyncsEarly() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "30"); // 3 replicas at 10 each: steady
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")));
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 1);
        long slot = firstSlotSecond("web");
        assertThat(run(1)).extracting(Sync::second).containsExactly(0L);

        // our own status write came back through the watch: not a reason to sync
        await().atMost(Waits.STATE).until(() -> controller.hpaCount() == 1 && readHpa("web").getStatus() != null);
        var h = readHpa("web");
        h.getSpec().setMinReplicas(5);
        h.getMetadata().setGeneration(2L);
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Waits.STATE).until(() -> controller.queue().dueAt(key(NS + "/web")).orElseThrow() == PRODUCTION_PERIOD.toNanos());
        List<Sync> afterEdit = run((int) slot + 30);
        assertThat(afterEdit).extracting(Sync::second).as("a period after the last sync (before its slot), then at its slots a period on: nothing else syncs early")
                .containsExactly(15L, slot + 30);
        assertThat(afterEdit.get(0).outcome().desiredReplicas()).isEqualTo(5);
    }

    private static HorizontalPodAutoscaler annotated(HorizontalPodAutoscaler hpa, String name, String value) {
        hpa.getMetadata().setAnnotations(new HashMap<>(Map.of(name, value)));
        return hpa;
    }

    private static List<Long> secondsOf(List<Sync> syncs, String hpa) {
        return syncs.stream().filter(s -> s.outcome() != null && s.outcome().key().toString().equals(NS + "/" + hpa)).map(Sync::second).toList();
    }

    /**
     * {@code first} (if not negative), then the seconds at which the HPA's slots at this period from manual time
     * {@code from} on are synced (rounded up, as {@link #run} counts them), up to second {@code until}.
     */
    private List<Long> expected(long first, String hpa, Duration period, Duration from, long until) {
        List<Long> out = new java.util.ArrayList<>();
        if (first >= 0) {
            out.add(first);
        }
        PhasedCadence cadence = new PhasedCadence(period, time, time);
        long slot = cadence.slotAtOrBefore(key(NS + "/" + hpa), from.toNanos() - 1) + period.toNanos(); // manual time starts at 0
        for (long s = (slot + 999_999_999L) / 1_000_000_000L; s <= until; s += period.toSeconds()) {
            out.add(s);
        }
        return out;
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
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 4);

        List<Sync> syncs = run(121);

        // at once (new HPAs), then each at its own slots from its own period on: a phase within its own period
        Duration fast = Duration.ofSeconds(5);
        Duration slow = Duration.ofMinutes(1);
        assertThat(secondsOf(syncs, "fast")).hasSize(24).containsExactlyElementsOf(expected(0, "fast", fast, fast, 120));
        assertThat(secondsOf(syncs, "flag")).hasSize(8).containsExactlyElementsOf(expected(0, "flag", PRODUCTION_PERIOD, PRODUCTION_PERIOD, 120));
        assertThat(secondsOf(syncs, "slow")).hasSize(2).containsExactlyElementsOf(expected(0, "slow", slow, slow, 120));
        assertThat(secondsOf(syncs, "bad")).as("an invalid period: the flag's, and the condition says why")
                .containsExactlyElementsOf(expected(0, "bad", PRODUCTION_PERIOD, PRODUCTION_PERIOD, 120));
        assertThat(condition(readHpa("bad"), "ScalingActive")).isEqualTo("False/InvalidAnnotation");
        assertThat(syncs.stream().filter(s -> s.outcome().key().toString().equals(NS + "/fast")).findFirst().orElseThrow().outcome().trace()
                .controls().syncPeriodMillis()).isEqualTo(5000);
    }

    @Test
    void anAnnotationChangeIsSyncedAtTheNextAllowedTimeWithoutARestartAndOurStatusWritesAreNot() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        cluster.metrics().setExternalMetric(NS, "queue_messages_ready", "30");
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 30, externalAverage("queue_messages_ready", "10")));
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 1);
        assertThat(run(1)).extracting(Sync::second).containsExactly(0L);
        await().atMost(Waits.STATE).until(() -> readHpa("web").getStatus() != null);
        Duration four = Duration.ofSeconds(4);

        // kubectl annotate: metadata only, the generation stays; the new period counts from the last sync
        HorizontalPodAutoscaler h = readHpa("web");
        h.getMetadata().setAnnotations(Map.of(ControlAnnotations.SYNC_PERIOD, "4s"));
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Waits.STATE).until(() -> controller.queue().dueAt(key(NS + "/web")).orElseThrow() == four.toNanos());
        assertThat(run(12)).extracting(Sync::second).as("4 s after the last sync, then every 4 s at its slots from 4 s on")
                .containsExactlyElementsOf(expected(4, "web", four, Duration.ofSeconds(8), 12));

        // a change right after a sync at its slot: picked up at its next slot, not earlier
        h = readHpa("web");
        h.getMetadata().setAnnotations(Map.of(ControlAnnotations.SYNC_PERIOD, "4s", ControlAnnotations.MODE, "Suspended"));
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        await().atMost(Waits.STATE).until(() -> controller.cached(key(NS + "/web")).getMetadata().getAnnotations().containsKey(ControlAnnotations.MODE));
        List<Long> slots = expected(-1, "web", four, Duration.ofSeconds(12).plusNanos(1), 40); // those not synced yet
        List<Sync> suspended = run((int) (slots.get(0) - 13 + 1));
        assertThat(suspended).singleElement().satisfies(s -> {
            assertThat(s.second()).isEqualTo(slots.get(0));
            assertThat(s.outcome().trace().controls().suspended()).isTrue();
        });
        await().atMost(Waits.STATE).until(() -> "False/Suspended".equals(condition(controller.cached(key(NS + "/web")), "ScalingActive")));
        assertThat(run(8)).extracting(Sync::second).as("its own status write did not requeue it: every 4 s")
                .hasSize(2).containsExactlyElementsOf(slots.subList(1, 3));
    }
}
