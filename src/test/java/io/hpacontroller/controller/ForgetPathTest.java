package io.hpacontroller.controller;

import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * A deleted HPA is forgotten through one path ({@code HorizontalController#forget}) whichever trigger noticed it,
 * and leaves nothing behind: not its queue state (period, pace), history, selector, controls or status. The
 * informer's delete is in {@link HorizontalControllerTest#deletedHpasLeaveNothingBehind}; shadow mode's in ShadowTest.
 * Driven on the manual clock, one sync at a time ({@link #run}).
 */
class ForgetPathTest extends LiveTestBase {

    private long goneReports(String key) {
        return syncs.stream().filter(r -> r.key().toString().equals(key) && r.outcome() == null).count();
    }

    private void assertNothingHeld() {
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(controller.heldPerHpa()).allSatisfy((store, held) ->
                assertThat(held).as(store).isZero()));
    }

    @Test
    void aQueuedKeyTheCacheDoesNotHoldIsForgottenWhenAWorkerTakesIt() throws Exception {
        controllerAtProductionRatio().addListener(syncs::add);
        controller.queue().addChanged(key(NS + "/ghost"), Duration.ofSeconds(3)); // as a watch event that raced the deletion

        assertThat(controller.syncDue()).extracting(SyncReport::key, SyncReport::outcome)
                .as("nothing reconciled; the listeners hear that it is gone").containsExactly(tuple(key(NS + "/ghost"), null));
        assertThat(controller.queue().state(key(NS + "/ghost"))).isEmpty();
        assertNothingHeld();
    }

    @Test
    void anHpaDeletedWhileItIsReconciledIsForgottenAfterTheReconcileToo() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "50m");
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        controllerAtProductionRatio().addListener(report -> {
            syncs.add(report);
            if (report.outcome() != null) {
                // deleted while the sync runs (the report is told before the worker looks at the cache again)
                client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").delete();
                await().atMost(Waits.STATE).until(() -> controller.cached(key(NS + "/web")) == null);
            }
        });

        run(16); // its first slot is within a period
        assertThat(syncsOf("web")).isOne();
        // one gone report from the check after the reconcile, one from the informer's delete: both went through forget
        await().atMost(Waits.STATE).until(() -> goneReports(NS + "/web") == 2);
        assertNothingHeld();
        assertThat(controller.queue().isTracked(key(NS + "/web"))).isFalse();
    }
}
