package io.hpacontroller.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
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
import org.junit.jupiter.api.Test;
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
        } finally {
            runtime.close();
            client.close();
        }
    }
}
