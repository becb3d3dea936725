package io.hpacontroller.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.cli.CommandRun;
import io.hpacontroller.cli.Main;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.RecordedExit;
import io.hpacontroller.testing.TrustingHttps;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 29.5 on a real API server: the metrics port serves HTTPS, and the API server decides who may read it. The
 * controller runs as the chart's ServiceAccount (which may create TokenReviews and SubjectAccessReviews, as the chart
 * grants); for {@code /metrics} and {@code /decisions/NS/NAME}: no token is 401, a token the API server does not
 * accept is 401, the token of a ServiceAccount without the chart's metrics-reader ClusterRole is 403, with it 200.
 * The health probes stay plain HTTP without a token. A scraper's repeated requests cost one review of each kind
 * (audit log), and {@code explain} reads the decisions over HTTPS with {@code --controller-token}.
 */
@RealKube
@Order(RealKubeExtension.ORDER_LONG)
class MetricsAuthIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static HttpResponse<String> get(HttpClient http, String url, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void onlyTheUsersTheApiServerAllowsReadTheMetricsAndTheDecisions(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease chart = ChartReleases.shipped(kube);
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "50m", "64Mi");
        ns.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric().endSpec().build());
        String reader = ChartReleases.serviceAccountToken(admin, ns.name(), "scraper", true);
        String stranger = ChartReleases.serviceAccountToken(admin, ns.name(), "stranger", false);

        ControllerOptions options = new ControllerOptions(io.hpacontroller.core.reconcile.ControllerConfig.defaults(), Duration.ofSeconds(1), 2,
                List.of(ns.name()), Duration.ofSeconds(5)).withApis(Set.of(HpaApi.BUILTIN), false);
        KubernetesClient client = chart.client();
        ControllerRuntime runtime = new ControllerRuntime(client, new ControllerRuntime.Settings(options, null,
                new InetSocketAddress("127.0.0.1", 0), MetricsServing.secure(ServingCertificate.selfSigned(Instant.now())),
                new InetSocketAddress("127.0.0.1", 0), Duration.ofSeconds(5)), new RecordedExit()); // no lease to lose
        try {
            runtime.start();
            HttpClient https = TrustingHttps.client(Duration.ofSeconds(30));
            String base = "https://127.0.0.1:" + runtime.metricsPort();
            String decisions = base + "/decisions/" + ns.name() + "/web";
            await().atMost(Duration.ofSeconds(60)).until(() -> get(https, decisions, reader).statusCode() == 200);

            Instant since = Instant.now();
            for (String url : List.of(base + "/metrics", decisions)) {
                assertThat(get(https, url, null).statusCode()).as("no token: " + url).isEqualTo(401);
                assertThat(get(https, url, "not-a-token").statusCode()).as("a token the API server does not accept: " + url).isEqualTo(401);
                HttpResponse<String> forbidden = get(https, url, stranger);
                assertThat(forbidden.statusCode()).as("not allowed: " + url).isEqualTo(403);
                assertThat(forbidden.body()).contains("User \"system:serviceaccount:" + ns.name() + ":stranger\" cannot get path \"" + URI.create(url).getPath());
                HttpResponse<String> ok = get(https, url, reader);
                assertThat(ok.statusCode()).as("allowed: " + url).isEqualTo(200);
            }
            assertThat(get(https, base + "/metrics", reader).body()).contains("horizontal_pod_autoscaler_controller_reconciliations_total");
            JsonNode body = JSON.readTree(get(https, decisions, reader).body());
            assertThat(body.path("hpa").asText()).isEqualTo(ns.name() + "/web");
            assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.healthPort() + "/healthz"))
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).as("the probes: plain, no token").isEqualTo(200);

            // a scraper's requests within the reviews' 10 s: its token and its path were just reviewed, the answers are kept
            kube.audit().sync();
            AuditEvent.Filter tokenReviews = AuditEvent.Filter.all().user(chart.user()).resource("tokenreviews");
            AuditEvent.Filter accessReviews = AuditEvent.Filter.all().user(chart.user()).resource("subjectaccessreviews");
            long tokenReviewsBefore = kube.audit().count(tokenReviews);
            long accessReviewsBefore = kube.audit().count(accessReviews);
            Instant scrapes = Instant.now();
            for (int i = 0; i < 5; i++) {
                assertThat(get(https, base + "/metrics", reader).statusCode()).isEqualTo(200);
            }
            Duration took = Duration.between(scrapes, Instant.now());
            kube.audit().sync();
            long moreTokenReviews = kube.audit().count(tokenReviews) - tokenReviewsBefore;
            long moreAccessReviews = kube.audit().count(accessReviews) - accessReviewsBefore;
            System.out.printf("MetricsAuthIT: %d TokenReviews and %d SubjectAccessReviews for 8 refused or served requests; 5 scrapes in %d ms"
                            + " then cost %d and %d more%n", kube.audit().count(tokenReviews.since(since)) - moreTokenReviews,
                    kube.audit().count(accessReviews.since(since)) - moreAccessReviews, took.toMillis(), moreTokenReviews, moreAccessReviews);
            assertThat(moreTokenReviews).as("the reader's token reviewed again only once its answer is 10 s old").isLessThanOrEqualTo(1);
            assertThat(moreAccessReviews).isLessThanOrEqualTo(1);

            // explain reads the decisions over HTTPS with the reader's token
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = Main.commandLine();
            cl.setOut(new PrintWriter(out));
            cl.setErr(new PrintWriter(err));
            int exit = cl.execute("explain", ns.name() + "/web", "--kubeconfig=" + kube.adminKubeconfig(), "-o", "json",
                    "--controller-url=" + base, "--controller-token=" + reader);
            assertThat(exit).as(err.toString()).isZero();
            JsonNode explained = JSON.readTree(out.toString());
            assertThat(explained.path("history").path("known").asBoolean()).as(explained.path("history").toString()).isTrue();

            // issue 38.1: without --controller-token, explain authenticates as the kubeconfig's user (its bearer token); the reader
            // and the stranger may both read the HPA and its target (a Role of this test), the stranger is refused /decisions in one line
            admin.rbac().roles().inNamespace(ns.name()).resource(new io.fabric8.kubernetes.api.model.rbac.RoleBuilder().withNewMetadata()
                    .withName("explain").endMetadata()
                    .addNewRule().withApiGroups("autoscaling").withResources("horizontalpodautoscalers").withVerbs("get").endRule()
                    .addNewRule().withApiGroups("apps").withResources("deployments/scale").withVerbs("get").endRule()
                    .addNewRule().withApiGroups("").withResources("pods").withVerbs("list").endRule()
                    .addNewRule().withApiGroups("metrics.k8s.io").withResources("pods").withVerbs("list").endRule().build()).create();
            admin.rbac().roleBindings().inNamespace(ns.name()).resource(new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                    .withNewMetadata().withName("explain").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
                    .withKind("Role").withName("explain").endRoleRef().addNewSubject().withKind("ServiceAccount").withName("scraper")
                    .withNamespace(ns.name()).endSubject().addNewSubject().withKind("ServiceAccount").withName("stranger")
                    .withNamespace(ns.name()).endSubject().build()).create();
            java.nio.file.Path readerConfig = kube.kubeconfigForServiceAccount(ns.name(), "scraper", null);
            // the API server's authorizer sees the new binding a moment later
            CommandRun asReader = await().atMost(Duration.ofSeconds(60)).until(() -> CommandRun.of("explain", ns.name() + "/web",
                    "--kubeconfig=" + readerConfig, "-o", "json", "--controller-url=" + base), r -> r.exit() == 0);
            assertThat(JSON.readTree(asReader.out()).path("history").path("known").asBoolean()).as(asReader.out()).isTrue();
            CommandRun asStranger = CommandRun.of("explain", ns.name() + "/web", "--kubeconfig=" + kube.kubeconfigForServiceAccount(ns.name(),
                    "stranger", null), "-o", "json", "--controller-url=" + base);
            assertThat(asStranger.exit()).as(asStranger.err()).isZero();
            assertThat(JSON.readTree(asStranger.out()).path("history").path("unknown").asText()).as(asStranger.out())
                    .startsWith("the controller at " + base + " answered HTTP 403: forbidden: User \"system:serviceaccount:" + ns.name()
                            + ":stranger\" cannot get path \"/decisions/" + ns.name() + "/web\" (sent: the kubeconfig user's token;");
        } finally {
            runtime.close();
            client.close();
        }
    }
}
