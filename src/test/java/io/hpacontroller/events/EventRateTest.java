package io.hpacontroller.events;

import io.hpacontroller.controller.LiveTestBase;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Events of a broken HPA against the API server, at the production ratio: no more than upstream's recorder writes. */
class EventRateTest extends LiveTestBase {

    @Test
    void twentySyncsOfAFailingHpaWriteNoMoreEventsThanUpstream() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        cluster.fail("GET", "^/apis/metrics\\.k8s\\.io/", 503, Integer.MAX_VALUE);
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 1);

        // created: at once, then at 19 of its slots from a period on
        List<Sync> syncs = run((int) firstSlotSecond("web") + 19 * 15 + 1);
        controller.flushEvents(Waits.STATE);

        assertThat(syncs).hasSize(20);
        long writes = cluster.count("POST", p -> p.contains("/events")) + cluster.count("PATCH", p -> p.contains("/events/"));
        assertThat(writes).as("two failure events per sync, 40 in all: a burst of 25 per HPA, then one per 5 minutes").isEqualTo(25);
        assertThat(controller.eventsRateLimited()).isEqualTo(15);
        assertThat(events("FailedGetResourceMetric")).singleElement().satisfies(e -> assertThat(e.getCount()).isEqualTo(13));
    }
}
