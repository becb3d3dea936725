package io.hpacontroller.api;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.testing.MockKubeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Failed requests read as client-go words them, so conditions and events read as kube-controller-manager's. */
class KubeApiTest {

    private static final String PODS = "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods";
    private final KubernetesSerialization json = new KubernetesSerialization();

    @RegisterExtension
    final MockKubeApi mock = new MockKubeApi();

    /** The example: no metrics-server installed. */
    @Test
    void noMetricsApiReadsAsUpstreamsError() {
        mock.server().expect().get().withPath(PODS + "?labelSelector=app%3Dweb").andReturn(404, "404 page not found").always();
        RestMetrics metrics = new RestMetrics(mock.api(), null);
        assertThatThrownBy(() -> metrics.podUsage("shop", Selector.parse("app=web"), "cpu"))
                .isInstanceOf(ApiException.class)
                .hasMessage("unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)");
    }

    @Test
    void anUnavailableAggregatedApiReadsAsUpstreamsError() {
        mock.server().expect().get().withPath("/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/qps").andReturn(503, "service unavailable\n").always();
        RestMetrics metrics = new RestMetrics(mock.api(), null);
        assertThatThrownBy(() -> metrics.podsMetric("shop", "qps", Selector.everything(), Selector.everything()))
                .hasMessage("unable to fetch metrics from custom metrics API: the server is currently unable to handle the request"
                        + " (get pods.custom.metrics.k8s.io *)");
    }

    /** explain's metric reads (streamed) are sent once more after a 503, as its other reads; the controller's are not. */
    @Test
    void aStreamedReadIsRetriedOnceOnlyForExplain() {
        String qps = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/qps";
        String empty = "{\"kind\":\"MetricValueList\",\"apiVersion\":\"custom.metrics.k8s.io/v1beta2\",\"metadata\":{},\"items\":[]}";
        mock.server().expect().get().withPath(qps).andReturn(503, "service unavailable\n").once();
        mock.server().expect().get().withPath(qps).andReturn(200, empty).always();

        assertThatThrownBy(() -> new RestMetrics(mock.api(), null).podsMetric("shop", "qps", Selector.everything(), Selector.everything()))
                .as("the controller's read: the next sync tries again").hasMessageContaining("unable to handle the request");
        mock.server().expect().get().withPath(qps).andReturn(503, "service unavailable\n").once();
        RestMetrics explains = new RestMetrics(mock.api().retryingReadsOnce(), null);
        org.assertj.core.api.Assertions.assertThatCode(() -> explains.podsMetric("shop", "qps", Selector.everything(), Selector.everything()))
                .doesNotThrowAnyException();
    }

    /** Item 6 of issue 29: an adapter answering HTTP 200 with "{not json" was an internal error, the stale status kept. */
    @Test
    void anAnswerThatIsNotJsonFailsTheMetricItWasFor() {
        mock.server().expect().get().withPath("/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/qps").andReturn(200, "{not json").always();
        mock.server().expect().get().withPath("/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue").andReturn(200, "{not json").always();
        mock.server().expect().get().withPath("/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/metrics/rps").andReturn(200, "").always();
        RestMetrics metrics = new RestMetrics(mock.api(), null);

        assertThatThrownBy(() -> metrics.podsMetric("shop", "qps", Selector.everything(), Selector.everything())).isInstanceOf(ApiException.class)
                .hasMessageStartingWith("unable to fetch metrics from custom metrics API: the answer is not valid JSON: Unexpected character ('n'");
        assertThatThrownBy(() -> metrics.externalMetric("shop", "queue", Selector.everything())).isInstanceOf(ApiException.class)
                .hasMessageStartingWith("unable to fetch metrics from external metrics API: the answer is not valid JSON: Unexpected character ('n'");
        assertThatThrownBy(() -> metrics.objectMetric("shop", "rps", new CrossVersionObjectReference("v1", "Namespace", "shop"), Selector.everything()))
                .isInstanceOf(ApiException.class)
                .hasMessage("unable to fetch metrics from custom metrics API: the answer is not a MetricValueList: it is not a JSON object");
    }

    /** Item 2 of issue 29: one adapter's 250,000 items (23 MB) for one HPA took the whole heap of both replicas. */
    @Test
    void anAnswerBeyondTheLimitsFailsTheMetricItWasFor() throws ApiException {
        String item = "{\"metricName\":\"queue\",\"metricLabels\":{},\"timestamp\":\"2026-11-23T10:00:00Z\",\"value\":\"1\"}";
        String body = "{\"kind\":\"ExternalMetricValueList\",\"items\":[" + String.join(",", java.util.Collections.nCopies(1000, item)) + "]}";
        mock.server().expect().get().withPath("/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue").andReturn(200, body).always();
        int bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

        assertThat(new RestMetrics(mock.api(), null, new RestMetrics.Limits(bytes, 1000)).externalMetric("shop", "queue", Selector.everything()).values())
                .as("exactly at both limits").hasSize(1000);
        assertThatThrownBy(() -> new RestMetrics(mock.api(), null, new RestMetrics.Limits(bytes - 1, 1000)).externalMetric("shop", "queue", Selector.everything()))
                .isInstanceOf(ApiException.class).hasMessage("unable to fetch metrics from external metrics API: the answer is larger than "
                        + (bytes - 1) + " bytes (--metrics-max-response-bytes)");
        assertThatThrownBy(() -> new RestMetrics(mock.api(), null, new RestMetrics.Limits(bytes, 999)).externalMetric("shop", "queue", Selector.everything()))
                .isInstanceOf(ApiException.class)
                .hasMessage("unable to fetch metrics from external metrics API: the answer has more than 999 items (--metrics-max-items)");
    }

    @Test
    void theApiServersStatusMessageIsTheError() {
        Status forbidden = new StatusBuilder().withStatus("Failure").withCode(403).withReason("Forbidden")
                .withMessage("pods.metrics.k8s.io is forbidden: User \"system:serviceaccount:hpa:hpa\" cannot list resource \"pods\"").build();
        mock.server().expect().get().withPath(PODS).andReturn(403, forbidden).always();
        Status conflict = new StatusBuilder().withStatus("Failure").withCode(409).withReason("Conflict")
                .withMessage("Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified").build();
        mock.server().expect().put().withPath("/apis/apps/v1/namespaces/shop/deployments/web/scale").andReturn(409, conflict).always();

        assertThatThrownBy(() -> mock.api().get(PODS)).hasMessage(forbidden.getMessage());
        assertThatThrownBy(() -> mock.api().put("/apis/apps/v1/namespaces/shop/deployments/web/scale", forbidden))
                .isInstanceOf(ApiException.Conflict.class).hasMessage(conflict.getMessage());
    }

    @Test
    void aRequestWithoutAnAnswerReadsAsGosUrlError() {
        mock.server().expect().get().delay(5, TimeUnit.SECONDS).withPath(PODS).andReturn(200, "{}").always();
        KubeApi impatient = new KubeApi(mock.client(), Duration.ofMillis(300));
        assertThatThrownBy(() -> impatient.get(PODS))
                .hasMessage("Get \"" + mock.server().url(PODS) + "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
    }

    /** Without a Status object in the answer: client-go's NewGenericServerResponse for the code that matters. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            404 | GET  | text/plain |            | the server could not find the requested resource (get pods.metrics.k8s.io)
            401 | GET  |            | Unauthorized | the server has asked for the client to provide credentials (get pods.metrics.k8s.io)
            403 | GET  | text/plain | forbidden: no | forbidden: no (get pods.metrics.k8s.io)
            409 | PUT  | application/json | {} | the server reported a conflict (put pods.metrics.k8s.io)
            429 | GET  | text/plain | slow down | the server has received too many requests and has asked us to try again later (get pods.metrics.k8s.io)
            500 | GET  | text/plain | boom "x" | an error on the server ("boom \\"x\\"") has prevented the request from succeeding (get pods.metrics.k8s.io)
            500 | GET  | application/json | {} | an error on the server ("unknown") has prevented the request from succeeding (get pods.metrics.k8s.io)
            503 | GET  | text/plain | service unavailable | the server is currently unable to handle the request (get pods.metrics.k8s.io)
            504 | GET  | text/plain |            | the server was unable to return a response in the time allotted, but may still be processing the request (get pods.metrics.k8s.io)
            418 | GET  | text/plain | teapot     | the server responded with the status code 418 but did not return more information (get pods.metrics.k8s.io)
            """)
    void withoutAStatusTheCodeSaysIt(int code, String method, String contentType, String body, String expected) {
        assertThat(ApiErrorText.of(code, method, PODS + "?labelSelector=app%3Dweb", contentType, body == null ? "" : body, json)).isEqualTo(expected);
    }

    @Test
    void theResourceAndNameComeFromThePathAsClientGoNamesThem() {
        assertThat(ApiErrorText.of(404, "GET", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/deployments.apps/web/rps", null, "", json))
                .endsWith("(get deployments.apps.custom.metrics.k8s.io web)");
        assertThat(ApiErrorText.of(404, "GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_messages_ready?labelSelector=q%3Dj", null, "", json))
                .endsWith("(get queue_messages_ready.external.metrics.k8s.io)");
        assertThat(ApiErrorText.of(404, "PUT", "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web/status", null, "", json))
                .endsWith("(put horizontalpodautoscalers.autoscaling web)");
        assertThat(ApiErrorText.of(404, "POST", "/api/v1/namespaces/shop/events", null, "", json)).endsWith("(post events)");
    }
}
