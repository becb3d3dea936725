package io.hpacontroller.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No two syncs of an HPA closer than its period, whatever triggers them (issues 27 and 29), against a real API
 * server: a new HPA is synced at once, and its second sync comes a period later, however often its control
 * annotations change meanwhile (each change is picked up at the next allowed time); our own status writes
 * trigger nothing. Seen in the audit log: the scale writes of an HPA that doubles its target at every sync.
 */
@RealKube
class CadenceIT {

    private static final Duration PERIOD = Duration.ofSeconds(6);
    /**
     * What a loaded machine may add to the start or the write of one sync and not the next: the gaps must be at least
     * {@code PERIOD - JITTER}, 3 s (the early syncs came less than 1 s apart).
     */
    private static final Duration JITTER = PERIOD.dividedBy(2);

    private static int replicas(TestNamespace ns) {
        return ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas();
    }

    private static List<Duration> gaps(List<Instant> times) {
        List<Duration> out = new ArrayList<>();
        for (int i = 1; i < times.size(); i++) {
            out.add(Duration.between(times.get(i - 1), times.get(i)));
        }
        return out;
    }

    @Test
    void aNewHpaIsSyncedAtOnceThenAPeriodApartHoweverOftenItsAnnotationsChange(KubeControlPlane kube, TestNamespace ns) throws Exception {
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("web", 2));
        // far above target: without behavior, the legacy limit doubles the replicas at every sync (max(2 x current, 4))
        ns.metrics().externalMetric("queue_messages_ready", "100000");
        String user = ChartReleases.shipped(kube).user();
        ControllerOptions options = ScaleTargetsIT.options(ns).withSyncPeriod(PERIOD);
        try (InProcessController controller = InProcessController.start(ChartReleases.shipped(kube).client(), options, null)) {
            List<Instant> syncStarts = new CopyOnWriteArrayList<>();
            controller.runtime().controller().addListener(r -> {
                if (r.outcome() != null && r.key().toString().equals(ns.name() + "/web")) {
                    syncStarts.add(Instant.now().minusNanos(r.totalNanos()));
                }
            });
            await().atMost(Duration.ofSeconds(60)).until(() -> controller.runtime().controller().isWorking());

            ns.create(hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 16, externalAverage("queue_messages_ready", "1")));
            await().atMost(Duration.ofSeconds(60)).until(() -> replicas(ns) == 4);
            // kubectl annotate (a merge patch) four times in a row: mode Auto, then back to no mode (also Auto)
            for (int i = 0; i < 4; i++) {
                String mode = i % 2 == 0 ? "\"Auto\"" : "null";
                admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").patch(PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + ControlAnnotations.MODE + "\":" + mode + "}}}");
                Thread.sleep(200);
            }
            await().atMost(Duration.ofMinutes(2)).until(() -> replicas(ns) == 16);
            int seen = syncStarts.size();
            await().atMost(Duration.ofMinutes(1)).until(() -> syncStarts.size() >= seen + 2); // and its status writes since

            // every sync that wants a step writes the scale once: the attempts (a write from a stale cache is refused
            // with 409, and the next sync tries again) are as far apart as the syncs
            AuditEvent.Filter scaleWrites = ns.audit().user(user).verb("update", "patch").resource("deployments").subresource("scale").name("web");
            List<Instant> attempts = kube.audit().events(scaleWrites).stream().map(AuditEvent::received).toList();
            assertThat(kube.audit().count(scaleWrites.code(200))).as("2 -> 4 -> 8 -> 16, one step per sync").isEqualTo(3);
            assertThat(gaps(attempts)).as("scale writes at %s", attempts)
                    .allSatisfy(gap -> assertThat(gap).isGreaterThanOrEqualTo(PERIOD.minus(JITTER)));
            assertThat(gaps(syncStarts)).as("syncs started at %s", syncStarts)
                    .allSatisfy(gap -> assertThat(gap).isGreaterThanOrEqualTo(PERIOD.minus(JITTER)));
        }
    }
}
