package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The fixture itself: authentication and RBAC, workloads and the kubelet, the metrics APIs through the aggregator, the audit log. */
@RealKube
class KubeControlPlaneIT {

    @Test
    void anonymousRequestsAreRefusedAndUsersGetOnlyWhatRbacGrants(KubeControlPlane kube, TestNamespace ns) throws Exception {
        HttpClient insecure = HttpClient.newBuilder().sslContext(trustAll()).build();
        HttpResponse<String> anonymous = insecure.send(HttpRequest.newBuilder(URI.create(kube.url() + "/api/v1/namespaces")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).as("--anonymous-auth=false").isEqualTo(401);

        Instant start = Instant.now();
        try (KubernetesClient jane = kube.clientAs("jane", "developers")) {
            assertThatThrownBy(() -> jane.pods().inNamespace(ns.name()).list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        }
        try (KubernetesClient sa = kube.clientAsServiceAccount(ns.name(), "default")) {
            assertThatThrownBy(() -> sa.pods().inNamespace(ns.name()).list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        }
        List<AuditEvent> denied = kube.audit().events(ns.audit().since(start).resource("pods").verb("list").code(403));
        assertThat(denied).extracting(AuditEvent::user).containsExactlyInAnyOrder("jane", "system:serviceaccount:" + ns.name() + ":default");
    }

    @Test
    void deploymentsGetRunningReadyPodsAndMetricsGoThroughTheAggregator(KubeControlPlane kube, TestNamespace ns) {
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "150m", "80Mi").podsMetric("queue_depth", "7")
                .objectMetric("deployments.apps", "web", "rps", "42").externalMetric("backlog", "3", "4");
        KubernetesClient admin = kube.adminClient();
        await().atMost(Waits.STATE).untilAsserted(() -> {
            List<Pod> pods = admin.pods().inNamespace(ns.name()).withLabel("app", "web").list().getItems();
            assertThat(pods).hasSize(2).allSatisfy(p -> {
                assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                assertThat(p.getStatus().getStartTime()).isNotNull();
                assertThat(p.getStatus().getConditions()).anySatisfy(c -> {
                    assertThat(c.getType()).isEqualTo("Ready");
                    assertThat(c.getStatus()).isEqualTo("True");
                });
            });
        });
        await().atMost(Waits.STATE).untilAsserted(() ->
                assertThat(admin.raw("/apis/metrics.k8s.io/v1beta1/namespaces/" + ns.name() + "/pods?labelSelector=app%3Dweb"))
                        .contains("\"cpu\":\"150m\"").contains("\"memory\":\"80Mi\""));
        assertThat(admin.raw("/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns.name() + "/pods/*/queue_depth?labelSelector=app%3Dweb"))
                .contains("\"value\":\"7\"").contains("\"metric\":{\"name\":\"queue_depth\"}");
        assertThat(admin.raw("/apis/custom.metrics.k8s.io/v1beta1/namespaces/" + ns.name() + "/deployments.apps/web/rps"))
                .contains("\"value\":\"42\"").contains("\"metricName\":\"rps\"");
        assertThat(admin.raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns.name() + "/backlog"))
                .contains("\"value\":\"3\"").contains("\"value\":\"4\"");

        String pod = admin.pods().inNamespace(ns.name()).withLabel("app", "web").list().getItems().get(0).getMetadata().getName();
        ns.metrics().podUsageOf(pod, "900m", "1Gi");
        assertThat(admin.raw("/apis/metrics.k8s.io/v1beta1/namespaces/" + ns.name() + "/pods/" + pod)).contains("\"cpu\":\"900m\"");

        long before = ns.metrics().requests(FakeMetricsServer.Api.EXTERNAL);
        ns.metrics().fail(FakeMetricsServer.Api.EXTERNAL, 500);
        assertThatThrownBy(() -> admin.raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns.name() + "/backlog"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(500));
        long failed = ns.metrics().requests(FakeMetricsServer.Api.EXTERNAL) - before; // the admin client retries a 500
        assertThat(failed).isPositive();
        assertThat(kube.audit().count(ns.audit().resource("backlog").apiGroup("external.metrics.k8s.io").code(500)))
                .as("each request went through the API server's proxy").isEqualTo(failed);
        ns.metrics().heal(FakeMetricsServer.Api.EXTERNAL);
        assertThat(admin.raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns.name() + "/backlog")).contains("\"value\":\"3\"");
    }

    @Test
    void podsOfANamespaceCanBeHeldUnready(KubeControlPlane kube, TestNamespace ns) {
        kube.kubelet().holdUnready(ns.name());
        ns.create(Workloads.deployment("slow", 2));
        KubernetesClient admin = kube.adminClient();
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(admin.pods().inNamespace(ns.name()).list().getItems())
                .hasSize(2).allSatisfy(p -> {
                    assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                    assertThat(p.getStatus().getConditions()).anySatisfy(c -> {
                        assertThat(c.getType()).isEqualTo("Ready");
                        assertThat(c.getStatus()).isEqualTo("False");
                    });
                }));
        kube.kubelet().release(ns.name());
        await().atMost(Waits.STATE).untilAsserted(() -> assertThat(admin.pods().inNamespace(ns.name()).list().getItems())
                .hasSize(2).allSatisfy(p -> assertThat(p.getStatus().getConditions()).anySatisfy(c -> {
                    assertThat(c.getType()).isEqualTo("Ready");
                    assertThat(c.getStatus()).isEqualTo("True");
                })));
    }

    private static javax.net.ssl.SSLContext trustAll() throws Exception {
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
            public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {
            }

            public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {
            }

            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                return new java.security.cert.X509Certificate[0];
            }
        }}, null);
        return ctx;
    }
}
