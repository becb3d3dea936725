package io.hpacontroller.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.shard.MemberLease;
import io.hpacontroller.shard.Ring;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.RecordedExit;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code explain} against the mock cluster: with the running controller's history (directly and through the
 * Lease and the API server's pod proxy) it answers as the controller decides; without it, it says the
 * history is unknown; it writes nothing; usage errors exit 2 with one line. Also the controller's
 * {@code /decisions/NAMESPACE/NAME} endpoint it reads.
 */
class ExplainCommandTest {

    private static final String NS = "demo";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private MockCluster cluster;
    private KubernetesClient client;
    private Path kubeconfig;
    private ControllerRuntime runtime;

    @BeforeEach
    void setUp() throws Exception {
        cluster = MockCluster.start();
        client = cluster.client();
        kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"), NS);
        client.apps().deployments().inNamespace(NS).resource(new DeploymentBuilder().withNewMetadata().withName("web").withNamespace(NS).endMetadata()
                .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx").withNewResources()
                .addToRequests("cpu", new Quantity("100m")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build()).create();
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName("web").withNamespace(NS).withGeneration(1L).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(8).addNewMetric().withType("Resource").withNewResource().withName("cpu")
                .withNewTarget().withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec()
                .build()).create();
    }

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.close();
        }
        cluster.close();
    }

    private void startController() throws Exception {
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults().withDownscaleStabilization(Duration.ofSeconds(30)),
                Duration.ofMillis(250), 2, List.of(), Duration.ofSeconds(5));
        runtime = new ControllerRuntime(cluster.newClient(), new ControllerRuntime.Settings(options, null,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.PLAIN, null, Duration.ofSeconds(5)), new RecordedExit()); // no lease to lose
        runtime.start();
    }

    private int replicas() {
        return client.apps().deployments().inNamespace(NS).withName("web").get().getSpec().getReplicas();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode lastDecision() throws Exception {
        JsonNode decisions = JSON.readTree(get(runtime.metricsPort(), "/decisions/demo/web").body()).path("decisions");
        return decisions.get(decisions.size() - 1);
    }

    private CommandRun explain(String... more) {
        String[] args = new String[3 + more.length];
        args[0] = "explain";
        args[1] = "demo/web";
        args[2] = "--kubeconfig=" + kubeconfig;
        System.arraycopy(more, 0, args, 3, more.length);
        return CommandRun.of(args);
    }

    @Test
    void withTheControllersHistoryExplainAnswersAsTheControllerDecides() throws Exception {
        startController();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        await().atMost(Waits.STATE).until(() -> replicas() == 8);
        cluster.workloads().setCpuPerPod(NS, "web", "10m");
        // the controller now holds 8 in its 30 s scale-down window
        await().atMost(Waits.STATE).until(() -> lastDecision().path("normalization").path("stabilization").isObject());

        String url = "http://127.0.0.1:" + runtime.metricsPort();
        CommandRun text = explain("--controller-url=" + url);
        assertThat(text.exit()).as(text.err()).isZero();
        // the window keeps the highest recommendation of the scale-up: 8, or more if a sync saw 8 pods before the load dropped
        assertThat(text.out()).containsPattern("^demo/web: holding at 8: the 30s scale-down window keeps the recommendation of (8|1[0-6]) made ")
                .contains("; without it: 2\n")
                .contains("history:  from the controller at " + url + "\n")
                .contains("the controller's last decision (")
                .contains("pods: 8 ready with samples, 0 unready or not yet initialized, 0 missing samples, 0 ignored (deleted or failed)")
                .contains("constraintsApplied: [StabilizationWindow]")
                .contains("would write (nothing was written): scale unchanged");

        CommandRun json = explain("--controller-url=" + url, "-o", "json");
        assertThat(json.exit()).as(json.err()).isZero();
        JsonNode e = JSON.readTree(json.out());
        long explainedAt = java.time.Instant.parse(e.path("trace").path("time").asText()).toEpochMilli(); // RFC 3339
        assertThat(e.path("history").path("known").asBoolean()).isTrue();
        assertThat(e.path("trace").path("desiredReplicas").asInt()).isEqualTo(8);
        assertThat(e.path("trace").path("rawDesiredReplicas").asInt()).isEqualTo(2);
        assertThat(e.path("wouldWrite").path("scale").isNull()).isTrue();

        // what the controller decides at its next sync is what explain said
        await().atMost(Waits.STATE).until(() -> java.time.Instant.parse(lastDecision().path("time").asText()).toEpochMilli() > explainedAt);
        JsonNode next = lastDecision();
        assertThat(next.path("desiredReplicas").asInt()).isEqualTo(8);
        assertThat(next.path("action").asText()).isEqualTo("NONE");
        assertThat(next.path("normalization").path("stabilization").path("keptReplicas").asInt())
                .isEqualTo(e.path("trace").path("normalization").path("stabilization").path("keptReplicas").asInt());

        // the same history through the Lease, the leader's pod and the API server's pod proxy
        client.leases().inNamespace("hpa-controller").resource(new LeaseBuilder().withNewMetadata().withName("hpa-controller")
                .withNamespace("hpa-controller").endMetadata().withNewSpec().withHolderIdentity("hpa-controller-0").endSpec().build()).create();
        // a leader serving HTTPS (the default): explain forwards its port through the API server and authenticates as the
        // kubeconfig's user; this kubeconfig's user has no token, so explain says what to give
        client.pods().inNamespace("hpa-controller").resource(new PodBuilder().withNewMetadata().withName("hpa-controller-0")
                .withNamespace("hpa-controller").endMetadata().withNewSpec().addNewContainer().withName("controller").withImage("hpa-controller")
                .withArgs("run", "--metrics-bind-address=:" + runtime.metricsPort())
                .addNewPort().withName("metrics").withContainerPort(runtime.metricsPort()).endPort().endContainer().endSpec().build()).create();
        CommandRun forwarded = explain();
        assertThat(forwarded.exit()).as(forwarded.err()).isZero();
        // this fake API server does not forward ports: the failure names what it needs
        assertThat(forwarded.out()).contains("history:  unknown: cannot forward port " + runtime.metricsPort() + " of the leader hpa-controller-0"
                + " (Lease hpa-controller/hpa-controller) through the API server (it needs get and create on pods/portforward in hpa-controller): ");
        // a kubeconfig user without a bearer token (a client certificate): explain says what to give
        Path certificateUser = Files.writeString(dir.resolve("cert-user"), Files.readString(kubeconfig).replace("user: {token: test}", "user: {}"));
        CommandRun secure = CommandRun.of("explain", "demo/web", "--kubeconfig=" + certificateUser);
        assertThat(secure.exit()).as(secure.err()).isZero();
        assertThat(secure.out()).contains("history:  unknown: the leader hpa-controller-0 (Lease hpa-controller/hpa-controller) serves /decisions"
                + " over HTTPS to the callers the API server authenticates (--metrics-secure), and the kubeconfig's user has no bearer token"
                + " (the controller reviews bearer tokens, not client certificates): give --controller-token TOKEN");
        // one serving plain HTTP (--metrics-secure=false): through the pod proxy
        client.pods().inNamespace("hpa-controller").withName("hpa-controller-0").edit(p -> {
            p.getSpec().getContainers().get(0).getArgs().add("--metrics-secure=false");
            return p;
        });
        CommandRun proxied = explain();
        assertThat(proxied.exit()).as(proxied.err()).isZero();
        assertThat(proxied.out()).containsPattern("^demo/web: holding at 8: the 30s scale-down window keeps the recommendation of (8|1[0-6]) made ")
                .contains("history:  from the leader hpa-controller-0 (Lease hpa-controller/hpa-controller), through the API server's pod proxy");

        // --sharding: no leader's Lease; the member Leases name the replica that owns demo/web, and its pod is asked
        client.leases().inNamespace("hpa-controller").withName("hpa-controller").delete();
        SortedSet<String> view = new TreeSet<>(List.of("hpa-controller-0", "hpa-controller-1"));
        for (String member : view) {
            client.leases().inNamespace("hpa-controller").resource(new LeaseBuilder().withNewMetadata()
                    .withName(MemberLease.leaseName("hpa-controller", member)).withNamespace("hpa-controller")
                    .withLabels(Map.of(MemberLease.MEMBER_LABEL, "hpa-controller"))
                    .withAnnotations(Map.of(MemberLease.VIEW_ANNOTATION, MemberLease.viewText(view))).endMetadata()
                    .withNewSpec().withHolderIdentity(member).withLeaseDurationSeconds(600).withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        }
        String owner = Ring.owner(HpaKey.parse("demo/web"), view);
        if (!owner.equals("hpa-controller-0")) { // the owner's pod is the one serving this controller's /decisions
            Pod pod = client.pods().inNamespace("hpa-controller").withName("hpa-controller-0").get();
            pod.getMetadata().setName(owner);
            pod.getMetadata().setResourceVersion(null);
            client.pods().inNamespace("hpa-controller").resource(pod).create();
        }
        CommandRun sharded = explain();
        assertThat(sharded.exit()).as(sharded.err()).isZero();
        assertThat(sharded.out()).contains("history:  from the replica " + owner + " that owns demo/web (--sharding, Lease hpa-controller/"
                + MemberLease.leaseName("hpa-controller", owner) + "), through the API server's pod proxy");
    }

    @Test
    void withoutTheControllerTheHistoryIsUnknownAndNothingIsWritten() throws Exception {
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        // the fake workload controller has made the pods and written the deployment's status: it writes nothing more
        cluster.workloads().awaitSettled(NS);
        cluster.clearRequests();

        CommandRun run = explain();
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("demo/web: scaling up from 2 to 4: cpu resource utilization (percentage of request) 100% "
                        + "against a target of 50% recommends 4")
                .contains("history:  unknown: no Lease hpa-controller/hpa-controller or demo/hpa-controller: no controller with leader election"
                        + " runs there (see --controller-namespace, --controller-lease); a controller run with --leader-elect=false (e.g. on a"
                        + " workstation) answers at its --metrics-bind-address: give --controller-url https://localhost:8080")
                .contains("this answer starts from an empty history")
                .containsPattern("\n     cpu sampled \\d+\\.\\d s before this sync\n")
                .contains("(upstream's defaults: the controller's are unknown)")
                .contains("would write (nothing was written): scale to 4")
                .contains("event Normal SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) above target");

        assertThat(cluster.requests()).allSatisfy(r -> assertThat(r.method()).isEqualTo("GET"));
        assertThat(replicas()).isEqualTo(2);
        assertThat(client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").get().getStatus()).isNull();

        // run from a workstation with the same kubeconfig takes its Lease in the context's namespace: explain finds it there
        client.leases().inNamespace(NS).resource(new LeaseBuilder().withNewMetadata().withName("hpa-controller").withNamespace(NS).endMetadata()
                .withNewSpec().withHolderIdentity("laptop_4242").endSpec().build()).create();
        CommandRun workstation = explain();
        assertThat(workstation.exit()).as(workstation.err()).isZero();
        assertThat(workstation.out()).contains("history:  unknown: the leader laptop_4242 (Lease demo/hpa-controller) is not a pod: a controller"
                + " run outside the cluster (its host name, then _ and its process id); give its address with --controller-url https://HOST:8080");
    }

    @Test
    void usageErrorsExitTwoWithOneLineNamingTheProblem() {
        CommandRun unknown = CommandRun.of("explain", "demo/nope", "--kubeconfig=" + kubeconfig);
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).startsWith("error: horizontalpodautoscaler demo/nope not found (neither autoscaling/v2 nor "
                + "autoscaling.hpa-controller.io/v1 has it)\n");
        CommandRun unknownMirror = CommandRun.of("explain", "xhpa/demo/web", "--kubeconfig=" + kubeconfig);
        assertThat(unknownMirror.exit()).isEqualTo(2);
        assertThat(unknownMirror.err()).startsWith("error: horizontalpodautoscaler xhpa/demo/web not found\n");

        CommandRun malformed = CommandRun.of("explain", "Web_1", "--kubeconfig=" + kubeconfig);
        assertThat(malformed.exit()).isEqualTo(2);
        assertThat(malformed.err()).startsWith("error: expected NAMESPACE/NAME or NAME of a HorizontalPodAutoscaler (or hpa/..., "
                + "xhpa/...), got 'Web_1'\n");
        // kubectl's habit: -n NAMESPACE NAME, and NAME alone in the kubeconfig context's namespace
        CommandRun byFlag = CommandRun.of("explain", "-n", "demo", "xhpa/web", "--kubeconfig=" + kubeconfig);
        assertThat(byFlag.err()).startsWith("error: horizontalpodautoscaler xhpa/demo/web not found\n");
        CommandRun inContext = CommandRun.of("explain", "nope", "--kubeconfig=" + kubeconfig); // the context names demo
        assertThat(inContext.err()).startsWith("error: horizontalpodautoscaler demo/nope not found");
        CommandRun both = CommandRun.of("explain", "-n", "demo", "other/web", "--kubeconfig=" + kubeconfig);
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).startsWith("error: give NAMESPACE/NAME or -n NAMESPACE NAME, not both (got -n demo and 'other/web')\n");

        CommandRun format = CommandRun.of("explain", "demo/web", "-o", "yaml", "--kubeconfig=" + kubeconfig);
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).startsWith("error: -o must be text or json, got yaml\n");

        CommandRun noKubeconfig = CommandRun.of("explain", "demo/web", "--kubeconfig=" + dir.resolve("missing"));
        assertThat(noKubeconfig.exit()).isEqualTo(2);
        assertThat(noKubeconfig.err()).startsWith("error: --kubeconfig " + dir.resolve("missing") + ": no such file");
        for (CommandRun r : List.of(unknown, unknownMirror, malformed, format, noKubeconfig)) {
            assertThat(r.err().lines().filter(l -> l.startsWith("error:")).count()).isEqualTo(1);
            assertThat(r.err()).doesNotContain("Exception");
        }
    }

    /** The mirror twin of demo/web, in namespace demo: the same spec under the mirror API. */
    private void mirrorTwin(String name) {
        io.hpacontroller.hpa.MirrorHpa m = new io.hpacontroller.hpa.MirrorHpa();
        m.getMetadata().setName(name);
        m.getMetadata().setNamespace(NS);
        m.setSpec(client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").get().getSpec());
        client.resources(io.hpacontroller.hpa.MirrorHpa.class).inNamespace(NS).resource(m).create();
    }

    @Test
    void aMirrorHpaIsExplainedByItsNameOrAsXhpaAndANameOfBothApisMustSayWhich() throws Exception {
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        await().atMost(Duration.ofSeconds(10)).until(() -> client.pods().inNamespace(NS).list().getItems().size() == 2);
        cluster.fail("GET", "/apis/autoscaling\\.hpa-controller\\.io/v1/namespaces/demo/horizontalpodautoscalers/web$", 403, 1);
        CommandRun mirrorForbidden = explain();
        assertThat(mirrorForbidden.exit()).as("a user who may read autoscaling/v2 HPAs only: " + mirrorForbidden.err()).isZero();
        mirrorTwin("api");

        CommandRun byName = CommandRun.of("explain", "demo/api", "--kubeconfig=" + kubeconfig, "--controller-url=http://127.0.0.1:1");
        assertThat(byName.exit()).as(byName.err()).isZero();
        assertThat(byName.out()).startsWith("autoscaling.hpa-controller.io/demo/api: scaling up from 2 to 4: ")
                .contains("GET http://127.0.0.1:1/decisions/autoscaling.hpa-controller.io/demo/api: ");
        CommandRun asXhpa = CommandRun.of("explain", "xhpa/demo/api", "--kubeconfig=" + kubeconfig, "-o", "json");
        assertThat(asXhpa.exit()).as(asXhpa.err()).isZero();
        assertThat(JSON.readTree(asXhpa.out()).path("trace").path("hpa").asText()).isEqualTo("autoscaling.hpa-controller.io/demo/api");

        mirrorTwin("web");
        CommandRun both = explain();
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).startsWith("error: demo/web is both an autoscaling/v2 HPA and a mirror HPA (autoscaling.hpa-controller.io/v1): "
                + "name one, hpa/demo/web or xhpa/demo/web\n");
        CommandRun builtin = CommandRun.of("explain", "hpa/demo/web", "--kubeconfig=" + kubeconfig);
        assertThat(builtin.exit()).as(builtin.err()).isZero();
        assertThat(builtin.out()).startsWith("demo/web: ");
    }

    @Test
    void aTransientFailureIsTriedOnceMoreAndAFailureIsOneLineNamingItsCause() throws Exception {
        cluster.fail("GET", "/horizontalpodautoscalers/web$", 503, 1);
        CommandRun once = explain();
        assertThat(once.exit()).as(once.err()).isZero();

        cluster.fail("GET", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/web$", 503, 2);
        CommandRun twice = explain();
        assertThat(twice.exit()).isEqualTo(1);
        assertThat(twice.err()).isEqualTo("error: cannot read horizontalpodautoscaler demo/web: injected fault\n");

        Path nowhere = dir.resolve("nowhere");
        java.nio.file.Files.writeString(nowhere, java.nio.file.Files.readString(kubeconfig).replace(cluster.url().replaceAll("/+$", ""),
                "https://127.0.0.1:1"));
        CommandRun unreachable = CommandRun.of("explain", "demo/web", "--kubeconfig=" + nowhere);
        assertThat(unreachable.exit()).isEqualTo(1);
        assertThat(unreachable.err()).isEqualTo("error: cannot read horizontalpodautoscaler demo/web: Get "
                + "\"https://127.0.0.1:1/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/web\": dial tcp 127.0.0.1:1: connect: connection refused\n");
    }

    @Test
    void theDecisionsEndpointServesTheLastTracesAndTheHistory() throws Exception {
        startController();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        await().atMost(Waits.STATE).until(() -> replicas() == 8);
        await().atMost(Waits.STATE).until(() -> JSON.readTree(get(runtime.metricsPort(), "/decisions/demo/web").body())
                .path("decisions").size() >= 3);

        HttpResponse<String> ok = get(runtime.metricsPort(), "/decisions/demo/web");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        JsonNode body = JSON.readTree(ok.body());
        assertThat(body.path("hpa").asText()).isEqualTo("demo/web");
        assertThat(body.path("leading").asBoolean()).isTrue();
        assertThat(body.path("flags").path("downscaleStabilizationMillis").asLong()).isEqualTo(30_000);
        assertThat(body.path("history").path("seen").asBoolean()).isTrue();
        assertThat(body.path("history").path("recommendations").size()).isPositive();
        assertThat(body.path("decisions").size()).isBetween(3, 20);
        JsonNode scaleUp = null;
        for (JsonNode d : body.path("decisions")) {
            if (d.path("rescaled").asBoolean()) {
                scaleUp = d;
            }
        }
        assertThat(scaleUp).as("the scale-ups are among the last decisions").isNotNull();
        assertThat(scaleUp.path("action").asText()).isEqualTo("SCALE_UP");
        assertThat(scaleUp.path("metrics").get(0).path("calculation").path("tolerance").path("source").asText()).isEqualTo("flag");

        // issue 38.6: times in RFC 3339, no -1 for "none", and a 404 that says where to look
        assertThat(scaleUp.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");
        assertThat(body.path("history").path("recommendations").get(0).path("timestamp").asText()).matches("\\d{4}-.*Z");
        assertThat(ok.body()).doesNotContain(":-1");
        assertThat(body.path("flags").path("hpaApis").toString()).isEqualTo("[\"autoscaling/v2\"]");
        HttpResponse<String> mirror = get(runtime.metricsPort(), "/decisions/autoscaling.hpa-controller.io/demo/web");
        assertThat(mirror.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(mirror.body()).path("message").asText()).isEqualTo("no decisions for the autoscaling.hpa-controller.io/v1"
                + " HPA demo/web; those of the autoscaling/v2 HPA of that name are at /decisions/demo/web");
        HttpResponse<String> none = get(runtime.metricsPort(), "/decisions/demo/nope");
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(none.body()).path("message").asText()).isEqualTo("this instance has not synced demo/nope; a mirror HPA's"
                + " decisions are at /decisions/autoscaling.hpa-controller.io/demo/nope");
        assertThat(get(runtime.metricsPort(), "/decisions/demo").statusCode()).isEqualTo(400);
        assertThat(get(runtime.metricsPort(), "/metrics").body()).contains("horizontal_pod_autoscaler_controller_reconciliations_total");
    }
}
