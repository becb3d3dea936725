package io.hpacontroller.controller;

import io.hpacontroller.api.WriteGate;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * API faults injected into the mock cluster: the controller reports them, never scales on them, tries
 * again next sync period, keeps every HPA in its queue and leaks no threads.
 */
class ApiFaultsTest extends LiveTestBase {

    private static final String METRICS = "^/apis/metrics\\.k8s\\.io/";

    private void webAt(int replicas, String cpuPerPod) {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", replicas)).create();
        cluster.workloads().setCpuPerPod(NS, "web", cpuPerPod);
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        // the fake workload controller makes the pods asynchronously: a first sync before them would fail on its own
        await().atMost(Waits.STATE).until(() -> client.pods().inNamespace(NS).list().getItems().size() == replicas);
    }

    @Test
    void aFailingMetricsApiIsReportedAndNothingScalesUntilItRecovers() throws Exception {
        webAt(2, "100m");
        cluster.fail("GET", METRICS, 503, Integer.MAX_VALUE);
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("web"), "ScalingActive")).isEqualTo("False/FailedGetResourceMetric");
            assertThat(events("FailedGetResourceMetric")).isNotEmpty();
            assertThat(events("FailedGetResourceMetric").get(0).getMessage()).contains("unable to fetch metrics from resource metrics API");
        });
        awaitMoreSyncs("web", 4);
        assertThat(replicas("web")).isEqualTo(2);
        assertThat(syncs).allSatisfy(r -> assertThat(r.outcome().rescaled()).isFalse());
        // (how often a failing HPA is synced: CadenceTest, at the production sync period)

        cluster.clearFaults();
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(replicas("web")).isGreaterThan(2);
            assertThat(condition(readHpa("web"), "ScalingActive")).isEqualTo("True/ValidMetricFound");
        });
    }

    @Test
    void aMetricsApiThatTimesOutCostsOneSyncNotTheClientsRetries() throws Exception {
        webAt(2, "100m");
        cluster.delay("GET", METRICS, Duration.ofSeconds(3), 2);
        ControllerOptions options = LiveFixtures.fastOptions();
        startController(new ControllerOptions(options.decisions(), options.syncPeriod(), options.workers(), List.of(), Duration.ofMillis(500))
                .withMetricsLimits(new RestMetrics.Limits(64L << 20, 50_000, Duration.ofMillis(500), 2))); // --metrics-request-timeout=500ms

        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(events("FailedGetResourceMetric")).isNotEmpty();
            assertThat(events("FailedGetResourceMetric").get(0).getMessage()).contains("context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
        });
        // once the API answers in time again, it scales
        await().atMost(Waits.STATE).until(() -> replicas("web") > 2);
    }

    @Test
    void partialMetricsDoNotScaleBeyondWhatUpstreamWould() throws Exception {
        webAt(4, "100m"); // 200 % of the target on every pod that reports
        await().atMost(Waits.STATE).until(() -> client.pods().inNamespace(NS).list().getItems().size() == 4);
        // two of the four pods report nothing: counted at 0 % on a scale-up, the ratio falls back to 1.0
        List<String> pods = client.pods().inNamespace(NS).list().getItems().stream().map(p -> p.getMetadata().getName()).sorted().toList();
        cluster.metrics().silence(NS, pods.get(0));
        cluster.metrics().silence(NS, pods.get(1));
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).until(() -> condition(readHpa("web"), "ScalingActive") != null);
        awaitMoreSyncs("web", 6);
        assertThat(replicas("web")).isEqualTo(4);
        assertThat(syncs).noneMatch(r -> r.outcome().rescaled());
        assertThat(condition(readHpa("web"), "ScalingActive")).isEqualTo("True/ValidMetricFound");
        assertThat(readHpa("web").getStatus().getCurrentMetrics().get(0).getResource().getCurrent().getAverageUtilization())
                .as("what the reporting pods use").isEqualTo(100);
    }

    @Test
    void scaleReadAndWriteFailuresAreReportedAndRetried() throws Exception {
        webAt(2, "100m");
        cluster.fail("GET", "/deployments/web/scale$", 500, 3);
        cluster.fail("PUT", "/deployments/web/scale$", 500, 2);
        startController(LiveFixtures.fastOptions());

        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(events("FailedGetScale")).isNotEmpty();
            assertThat(events("FailedRescale")).isNotEmpty();
            assertThat(events("FailedRescale").get(0).getMessage()).startsWith("New size: 4; reason: cpu resource utilization");
        });
        await().atMost(Waits.STATE).until(() -> replicas("web") >= 4);
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(condition(readHpa("web"), "AbleToScale")).startsWith("True/"));
    }

    @Test
    void aDeletedTargetIsReportedAndTheOtherHpasKeepScaling() throws Exception {
        webAt(2, "100m");
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "gone", 2)).create();
        create(hpa(NS, "gone", "apps/v1", "Deployment", "gone", 1, 10, cpuUtilization(50)));
        startController(LiveFixtures.fastOptions());
        await().atMost(Waits.STATE).until(() -> readHpa("gone").getStatus() != null);

        client.apps().deployments().inNamespace(NS).withName("gone").delete();
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("gone"), "AbleToScale")).isEqualTo("False/FailedGetScale");
            assertThat(events("FailedGetScale")).isNotEmpty();
        });
        await().atMost(Waits.STATE).until(() -> replicas("web") == 10);
        assertThat(controller.queue().isTracked(key("demo/gone"))).as("the queue keeps the HPA whose target is gone").isTrue();
    }

    @Test
    void aConflictingStatusWriteIsWrittenOnTheLatestHpa() throws Exception {
        webAt(2, "100m");
        cluster.fail("PUT", "/horizontalpodautoscalers/web/status$", 409, 1);
        startController(LiveFixtures.fastOptions());
        await().atMost(Waits.STATE).until(() -> readHpa("web").getStatus() != null && readHpa("web").getStatus().getDesiredReplicas() != null);
        assertThat(cluster.count("GET", p -> p.endsWith("/horizontalpodautoscalers/web"))).as("re-read after the conflict").isPositive();
        await().atMost(Waits.STATE).until(() -> !syncs.isEmpty());
        assertThat(syncs.get(0).outcome().statusWritten()).as("the sync that met the conflict wrote its status").isTrue();
        assertThat(syncs.get(0).outcome().error()).isEqualTo(io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind.NONE);
        controller.flushEvents(Waits.STATE);
        assertThat(events("FailedUpdateStatus")).isEmpty();
    }

    @Test
    void noThreadsLeakThroughFaultsAndRestarts() throws Exception {
        webAt(2, "100m");
        int before = liveThreads().size();
        for (int i = 0; i < 3; i++) {
            cluster.fail("GET", METRICS, 500, 5);
            try (var kube = cluster.newClient()) {
                HorizontalController c = new HorizontalController(kube, LiveFixtures.fastOptions(), java.time.Clock.systemUTC(), WriteGate.alwaysOpen());
                List<SyncReport> reports = new CopyOnWriteArrayList<>();
                c.addListener(reports::add);
                c.start(Waits.STATE);
                await().atMost(Waits.STATE).until(() -> reports.size() >= 2); // it ran, failures included
                c.stop(Waits.STATE);
            }
        }
        await().atMost(Waits.STATE).untilAsserted(() ->
                assertThat(liveThreads()).filteredOn(n -> n.startsWith("hpa-") || n.startsWith("event-publisher")).isEmpty());
        assertThat(liveThreads().size()).isLessThanOrEqualTo(before + 4);
    }

    private static Set<String> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .collect(java.util.stream.Collectors.toSet());
    }

}
