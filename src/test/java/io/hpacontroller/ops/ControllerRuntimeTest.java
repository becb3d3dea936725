package io.hpacontroller.ops;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.controller.Ticker;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Leader election, health, Prometheus metrics and shutdown of the controller as it runs in a cluster. */
class ControllerRuntimeTest {

    private static final String NS = "demo";
    private MockCluster cluster;
    private KubernetesClient client;
    private final List<ControllerRuntime> runtimes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        cluster = MockCluster.start();
        client = cluster.client();
        Deployment d = new DeploymentBuilder().withNewMetadata().withName("web").withNamespace(NS).endMetadata()
                .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx").withNewResources()
                .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
        client.apps().deployments().inNamespace(NS).resource(d).create();
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName("web").withNamespace(NS).withGeneration(1L).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(8).addNewMetric().withType("Resource").withNewResource().withName("cpu")
                .withNewTarget().withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec()
                .build()).create();
        // the fake workload controller's pods, and their metrics, exist before a runtime starts: a first sync before them
        // reads no metrics at all (the CI run of 2026-11-29 11:58 did, and failed for that, not for the lease)
        cluster.workloads().awaitSettled(NS);
    }

    @AfterEach
    void tearDown() {
        runtimes.forEach(ControllerRuntime::close);
        cluster.close();
    }

    private static final String METRICS = "^/apis/metrics\\.k8s\\.io/";
    /** Exit statuses the runtimes asked for (instead of ending the test JVM). */
    private final List<Integer> exits = new CopyOnWriteArrayList<>();

    private ControllerRuntime runtime(String identity, boolean leaderElection) throws IOException {
        return runtime(leaderElection ? Waits.steadyLease(NS, "hpa-controller", identity) : null);
    }

    /** A runtime under leader election whose every sync, from the first, is added to {@code syncs}. */
    private ControllerRuntime runtime(String identity, List<SyncReport> syncs) throws IOException {
        return runtime(Waits.steadyLease(NS, "hpa-controller", identity), syncs);
    }

    /** A lease renewed every 300 ms, lost 2 s after the last renewal: for the tests about losing it, and its deadline. */
    private ControllerRuntime runtimeOnAShortLease(String identity) throws IOException {
        return runtime(new LeaseSettings(NS, "hpa-controller", identity, Duration.ofSeconds(4), Duration.ofSeconds(2), Duration.ofMillis(300)));
    }

    private ControllerRuntime runtime(LeaseSettings election) throws IOException {
        return runtime(election, null);
    }

    /** @param syncs where every sync is added from the first, null for nowhere */
    private ControllerRuntime runtime(LeaseSettings election, List<SyncReport> syncs) throws IOException {
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO),
                Duration.ofMillis(250), 2, List.of(), Duration.ofSeconds(5));
        // in-flight syncs finish before a stop or a lost lease goes on, however slow the machine
        ControllerRuntime r = new ControllerRuntime(cluster.newClient(), new ControllerRuntime.Settings(options, election,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, new InetSocketAddress("127.0.0.1", 0), Waits.STATE),
                exits::add, Clock.systemUTC(), Ticker.SYSTEM);
        if (syncs != null) {
            r.controller().addListener(syncs::add);
        }
        runtimes.add(r);
        r.start();
        return r;
    }

    private int replicas() {
        return client.apps().deployments().inNamespace(NS).withName("web").get().getSpec().getReplicas();
    }

    private Lease lease() {
        return client.leases().inNamespace(NS).withName("hpa-controller").get();
    }

    /** Someone else takes the lease (as after a network partition), for ten minutes. */
    private void takeLeaseAway() {
        await().atMost(Waits.STATE).ignoreExceptions().until(() -> {
            Lease lease = lease();
            lease.getSpec().setHolderIdentity("intruder");
            lease.getSpec().setRenewTime(ZonedDateTime.now());
            lease.getSpec().setLeaseDurationSeconds(600);
            client.leases().inNamespace(NS).resource(lease).update(); // a conflict with a renewal: try again
            return true;
        });
    }

    private List<Event> events(String reason) {
        return client.v1().events().inNamespace(NS).list().getItems().stream().filter(e -> reason.equals(e.getReason())).toList();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void exactlyOneInstanceReconcilesAndAStandbyTakesOverWhenTheLeaderStops() throws Exception {
        cluster.workloads().setCpuPerPod(NS, "web", "50m"); // the target: no scaling yet
        List<SyncReport> syncsOfA = new CopyOnWriteArrayList<>();
        ControllerRuntime a = runtime("instance-a", syncsOfA);
        await().atMost(Waits.STATE).until(a::isLeader);
        List<SyncReport> syncsOfB = new CopyOnWriteArrayList<>();
        ControllerRuntime b = runtime("instance-b", syncsOfB);
        // the pods change once both instances watch them: the mock server's watch does not replay what changed between
        // an informer's list and its watch, and a deletion missed there would leave the standby a pod that is gone
        await().atMost(Waits.STATE).until(() -> cluster.count("GET", p -> p.startsWith("/api/v1/pods?") && p.contains("watch=true")) >= 2);

        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        await().atMost(Waits.STATE).until(() -> replicas() == 8 && syncsOfA.size() >= 10);
        assertThat(b.isLeader()).isFalse();
        assertThat(syncsOfB).as("the standby never reconciles, while the leader synced %d times", syncsOfA.size()).isEmpty();
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("instance-a");

        a.close(); // graceful: releases the lease
        await().atMost(Waits.STATE).until(b::isLeader);
        cluster.workloads().setCpuPerPod(NS, "web", "10m"); // 10 %: 8 -> 2 -> 1
        // a sync is reported when it ends, after its status write (the scale can be seen before)
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(rescales(syncsOfB)).as("the standby's last syncs: %s", last(syncsOfB))
                .anyMatch(t -> t.desiredReplicas() == 1));
        assertThat(exits).as("a graceful stop is not a lost lease").isEmpty();

        // no double scaling: in time order, the rescales of both instances form one chain, each from the count the one
        // before left, the standby's all after the leader's
        List<DecisionTrace> chain = new ArrayList<>(rescales(syncsOfA));
        assertThat(chain).as("the leader scaled up to 8").extracting(DecisionTrace::desiredReplicas).contains(8);
        chain.addAll(rescales(syncsOfB));
        assertThat(chain).extracting(DecisionTrace::time).isSorted();
        assertThat(chain.get(0).currentReplicas()).isEqualTo(2);
        for (int i = 1; i < chain.size(); i++) {
            assertThat(chain.get(i).currentReplicas()).as("rescale %d of %s", i, steps(chain)).isEqualTo(chain.get(i - 1).desiredReplicas());
        }
        // and each has its event, once (A's were posted before it let the lease go; B posts in the background)
        List<String> expected = chain.stream().map(t -> "New size: " + t.desiredReplicas() + "; reason: " + t.reason()).sorted().toList();
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(events("SuccessfulRescale").stream()
                .flatMap(e -> Collections.nCopies(e.getCount(), e.getMessage()).stream()).sorted().toList()).isEqualTo(expected));
    }

    private static List<DecisionTrace> rescales(List<SyncReport> syncs) {
        return syncs.stream().filter(r -> r.outcome() != null && r.outcome().trace().rescaled()).map(r -> r.outcome().trace()).toList();
    }

    /** The last five syncs: the count read, the metrics' proposal, the decision and the error, for a failure message. */
    private static String last(List<SyncReport> syncs) {
        List<SyncReport> all = List.copyOf(syncs); // a snapshot: the list grows meanwhile
        return all.subList(Math.max(0, all.size() - 5), all.size()).stream().filter(r -> r.outcome() != null)
                .map(r -> r.outcome().trace()).map(t -> t.currentReplicas() + " (metrics " + t.rawDesiredReplicas() + ") -> "
                        + t.desiredReplicas() + (t.errorMessage() == null ? "" : " " + t.errorMessage())).collect(Collectors.joining("; "));
    }

    private static String steps(List<DecisionTrace> rescales) {
        return rescales.stream().map(t -> t.currentReplicas() + " -> " + t.desiredReplicas()).collect(Collectors.joining(", "));
    }

    @Test
    void aGracefulStopReleasesTheLease() throws Exception {
        ControllerRuntime a = runtime("instance-a", true);
        await().atMost(Waits.STATE).until(a::isLeader);
        a.close();
        assertThat(lease().getSpec().getHolderIdentity()).isEmpty();
        assertThat(lease().getSpec().getLeaseDurationSeconds()).isEqualTo(1);
    }

    @Test
    void aLeaderThatLosesItsLeaseExitsAndItsInFlightReconcileDoesNotWrite() throws Exception {
        cluster.workloads().setCpuPerPod(NS, "web", "100m"); // twice the target: the sync wants to scale
        cluster.delay("GET", METRICS, Duration.ofSeconds(3), 1); // the first sync waits for its metrics
        ControllerRuntime a = runtimeOnAShortLease("instance-a");
        List<SyncReport> syncs = new CopyOnWriteArrayList<>();
        a.controller().addListener(syncs::add);
        await().atMost(Waits.STATE).until(() -> cluster.count("GET", p -> p.startsWith("/apis/metrics.k8s.io/")) == 1);

        takeLeaseAway(); // while the sync is in flight
        long writesBefore = cluster.count("PUT", p -> p.matches(".*/(scale|status)(\\?.*)?"));
        await().atMost(Waits.STATE).until(() -> exits.equals(List.of(1)));
        assertThat(a.isLeader()).isFalse();
        assertThat(a.controller().isWorking()).isFalse();

        assertThat(syncs).as("the in-flight sync finished").hasSize(1);
        assertThat(syncs.get(0).outcome().rescaled()).isFalse();
        assertThat(syncs.get(0).outcome().errorMessage()).contains("does not hold a fresh leader lease");
        assertThat(cluster.count("PUT", p -> p.matches(".*/(scale|status)(\\?.*)?"))).isEqualTo(writesBefore);
        assertThat(replicas()).isEqualTo(2);
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("intruder");
    }

    @Test
    void aLeaderWhoseAcquisitionOutlastedTheRenewDeadlineStartsItsWorkersOnceItRenews() throws Exception {
        // another instance holds the lease for 3 s more (the informers sync meanwhile); the takeover's read and write
        // take 2.2 s together, longer than the 2 s renew deadline: the lease is won but not fresh when the workers
        // could start; it is fresh again at the next renewal
        client.leases().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                .withNewMetadata().withName("hpa-controller").withNamespace(NS).endMetadata()
                .withNewSpec().withHolderIdentity("instance-gone").withLeaseDurationSeconds(3).withRenewTime(ZonedDateTime.now())
                .withAcquireTime(ZonedDateTime.now()).withLeaseTransitions(0).endSpec().build()).create();
        cluster.delay("GET", "^/apis/coordination\\.k8s\\.io/v1/namespaces/demo/leases/hpa-controller$", Duration.ofMillis(300), Integer.MAX_VALUE);
        cluster.delay("PUT", "^/apis/coordination\\.k8s\\.io/v1/namespaces/demo/leases/hpa-controller$", Duration.ofMillis(1900), 1);
        ControllerRuntime a = runtimeOnAShortLease("instance-a");
        await().atMost(Waits.STATE).until(a::isLeader);
        assertThat(a.workerStart().get(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).as("the leader started its workers").isTrue();
        assertThat(a.controller().isWorking()).isTrue();
        assertThat(exits).isEmpty();
    }

    @Test
    void workersNeverStartWhenTheLeaseIsLostBeforeTheInformersSynced() throws Exception {
        cluster.fail("GET", "^/api/v1/pods$", 500, Integer.MAX_VALUE); // the pods cannot be listed yet
        ControllerRuntime a = runtimeOnAShortLease("instance-a");
        await().atMost(Waits.STATE).until(a::isLeader);
        var start = a.workerStart();
        assertThat(a.controller().isSynced()).isFalse();

        takeLeaseAway();
        await().atMost(Waits.STATE).until(() -> exits.equals(List.of(1)));
        assertThat(start).isNotDone();
        cluster.clearFaults();
        assertThat(start.get(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).as("the informers synced; the workers did not start").isFalse();
        assertThat(a.controller().isSynced()).isTrue();
        assertThat(a.controller().isWorking()).isFalse();
        assertThat(a.startWorkersIfLeading()).as("nor later").isFalse();
    }

    @Test
    void shutdownPostsThePendingEventsBeforeWritesClose() throws Exception {
        cluster.fail("GET", METRICS, 503, Integer.MAX_VALUE); // every sync records two Warning events
        cluster.delay("POST", "/events$", Duration.ofSeconds(2), 1); // the first one is slow to post: the second waits in the queue
        ControllerRuntime r = runtime("solo", false);
        List<SyncReport> syncs = new CopyOnWriteArrayList<>();
        r.controller().addListener(syncs::add);
        await().atMost(Waits.STATE).until(() -> !syncs.isEmpty());

        r.close();
        assertThat(events("FailedGetResourceMetric")).hasSize(1);
        assertThat(events("FailedComputeMetricsReplicas")).as("posted before the writes closed").hasSize(1);
    }

    @Test
    void healthReadinessAndPrometheusMetrics() throws Exception {
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        ControllerRuntime r = runtime("solo", false);
        assertThat(get(r.healthPort(), "/healthz").statusCode()).isEqualTo(200);
        await().atMost(Waits.STATE).until(() -> get(r.healthPort(), "/readyz").statusCode() == 200);
        await().atMost(Waits.STATE).until(() -> replicas() == 8);

        // the listener that sets the gauges runs just after the reconcile that scaled
        await().atMost(Waits.STATE).until(() -> get(r.metricsPort(), "/metrics").body()
                .contains("horizontal_pod_autoscaler_controller_desired_replicas{api_group=\"autoscaling\",hpa_name=\"web\",namespace=\"demo\"} 8.0"));
        String metrics = get(r.metricsPort(), "/metrics").body();
        assertThat(metrics)
                .contains("horizontal_pod_autoscaler_controller_reconciliations_total{action=\"scale_up\",error=\"none\"}")
                .contains("horizontal_pod_autoscaler_controller_reconciliation_duration_seconds_bucket{action=\"scale_up\",error=\"none\",le=\"0.001\"}")
                .contains("horizontal_pod_autoscaler_controller_metric_computation_total{action=\"scale_up\",error=\"none\",metric_type=\"Resource\"}")
                .contains("horizontal_pod_autoscaler_controller_metric_computation_duration_seconds_count{action=\"scale_up\",error=\"none\",metric_type=\"Resource\"}")
                .contains("horizontal_pod_autoscaler_controller_desired_replicas{api_group=\"autoscaling\",hpa_name=\"web\",namespace=\"demo\"} 8.0")
                .contains("horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers 1.0")
                .contains("workqueue_depth{name=\"horizontalpodautoscaler\"}")
                .contains("workqueue_adds_total{name=\"horizontalpodautoscaler\"}")
                .contains("workqueue_retries_total{name=\"horizontalpodautoscaler\"}")
                .contains("workqueue_queue_duration_seconds_bucket{name=\"horizontalpodautoscaler\"")
                .contains("leader_election_master_status")
                .containsPattern("hpa_controller_events_total\\{result=\"posted\"} [1-9]")
                .contains("hpa_controller_events_total{result=\"dropped\"} 0.0")
                .contains("jvm_memory_used_bytes")
                .containsPattern("hpa_controller_metric_age_seconds_count\\{api=\"metrics.k8s.io\"} [1-9]");
        assertThat(metrics).as("nothing learned of a pipeline no HPA reads").doesNotContain("pipeline=\"external.metrics.k8s.io\"");

        // issue 40: the learned cadence of a pipeline, here an adapter scraping every 15 s, each sample stamped 1 s before
        // its scrape, read by three HPAs 0.5, 1.5 and 7 s after each scrape (their first syncs 100 s ago)
        long base = (System.currentTimeMillis() - 100_000) / 15_000 * 15_000;
        for (long scrape = base; scrape < base + 90_000; scrape += 15_000) {
            learn(r, "demo/q0", scrape + 500, scrape - 1_000);
            learn(r, "demo/q1", scrape + 1_500, scrape - 1_000);
            learn(r, "demo/q2", scrape + 7_000, scrape - 1_000);
        }
        String learned = get(r.metricsPort(), "/metrics").body();
        assertThat(learned).contains("hpa_controller_metrics_pipeline_period_seconds{pipeline=\"external.metrics.k8s.io\"} 15.0")
                .containsPattern("hpa_controller_metrics_pipeline_delay_seconds\\{pipeline=\"external.metrics.k8s.io\"} 1\\.[0-9]")
                .containsPattern("hpa_controller_metrics_pipeline_phase_seconds\\{pipeline=\"external.metrics.k8s.io\"} 0\\.[0-9]");
    }

    /** A sync at {@code at} of the HPA {@code key} with one External metric read the sample stamped {@code sampleTime}. */
    private static void learn(ControllerRuntime r, String key, long at, long sampleTime) {
        MetricTrace m = new MetricTrace("External", "queue", "queue external metric", "Value", 1, 1, sampleTime, null, 1, null, null, null, false);
        r.controller().pipelines().observe(HpaKey.parse(key), DecisionTrace.builder(HpaKey.parse(key), at).metrics(List.of(m), 0, null, 1).build(), at);
    }

    @Test
    void aDeletedHpaLeavesNoMetricSeriesAndNoDecisionsBehind() throws Exception {
        ControllerRuntime r = runtime("solo", false);
        HorizontalPodAutoscaler web = client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").get();
        List<String> names = List.of("a", "b", "c", "d", "e", "f");
        for (int round = 0; round < 2; round++) {
            for (String name : names) { // the same target: AmbiguousSelector, but a desired count (the current one) all the same
                HorizontalPodAutoscaler h = new HorizontalPodAutoscalerBuilder(web).editMetadata().withName(name).withResourceVersion(null)
                        .withUid(null).endMetadata().withStatus(null).build();
                client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).create();
            }
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                String metrics = get(r.metricsPort(), "/metrics").body();
                for (String name : names) {
                    assertThat(metrics).contains(desiredReplicasSeries(name));
                    assertThat(get(r.metricsPort(), "/decisions/" + NS + "/" + name).statusCode()).isEqualTo(200);
                }
            });

            names.forEach(n -> client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName(n).delete());
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                String metrics = get(r.metricsPort(), "/metrics").body();
                for (String name : names) {
                    assertThat(metrics).doesNotContain(desiredReplicasSeries(name));
                    assertThat(get(r.metricsPort(), "/decisions/" + NS + "/" + name).statusCode()).as("/decisions of %s", name).isEqualTo(404);
                }
                assertThat(metrics).as("the live HPA keeps its series").contains(desiredReplicasSeries("web"));
            });
        }
    }

    private static String desiredReplicasSeries(String hpa) {
        return "horizontal_pod_autoscaler_controller_desired_replicas{api_group=\"autoscaling\",hpa_name=\"" + hpa + "\",namespace=\"" + NS + "\"}";
    }

    @Test
    void shutdownFinishesInFlightWorkAndStopsEverything() throws Exception {
        ControllerRuntime r = runtime("solo", false);
        await().atMost(Waits.STATE).until(() -> r.controller().isWorking());
        assertThat(get(r.healthPort(), "/healthz").statusCode()).isEqualTo(200);
        assertThat(r.endpointsClosed()).isFalse();
        r.close();
        r.awaitStopped();
        assertThat(r.controller().isWorking()).isFalse();
        assertThat(r.controller().busyWorkers()).isZero();
        assertThat(r.controller().queue().isShuttingDown()).isTrue();
        // the sockets themselves: a connection refused would prove nothing, since a parallel test may bind the freed port
        // (the CI run of 2026-11-28 20:25 connected to one)
        assertThat(r.endpointsClosed()).isTrue();
    }
}
