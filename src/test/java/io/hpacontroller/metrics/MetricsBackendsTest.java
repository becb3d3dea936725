package io.hpacontroller.metrics;

import io.hpacontroller.core.cadence.MetricsPipelines;
import io.hpacontroller.testing.MockKubeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The metrics APIs' backends, read from their APIServices, make the pipelines the fresh cadence learns. */
class MetricsBackendsTest {

    private static final String APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices/";

    @RegisterExtension
    final MockKubeApi mock = new MockKubeApi();

    private void apiService(String name, String group, String serviceNamespace, String serviceName) {
        String service = serviceName == null ? "null" : "{\"namespace\":\"" + serviceNamespace + "\",\"name\":\"" + serviceName + "\",\"port\":443}";
        mock.server().expect().get().withPath(APISERVICES + name).andReturn(200, "{\"apiVersion\":\"apiregistration.k8s.io/v1\",\"kind\":\"APIService\","
                + "\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"group\":\"" + group + "\",\"service\":" + service + "}}").always();
    }

    @Test
    void oneAdapterServingCustomAndExternalMetricsIsOnePipeline() {
        apiService("v1beta1.metrics.k8s.io", "metrics.k8s.io", "kube-system", "metrics-server");
        apiService("v1beta2.custom.metrics.k8s.io", "custom.metrics.k8s.io", "monitoring", "prometheus-adapter");
        apiService("v1beta1.external.metrics.k8s.io", "external.metrics.k8s.io", "monitoring", "prometheus-adapter");

        Map<String, String> backends = MetricsBackends.read(mock.api());

        assertThat(backends).containsExactly(Map.entry("metrics.k8s.io", "kube-system/metrics-server"),
                Map.entry("custom.metrics.k8s.io", "monitoring/prometheus-adapter"),
                Map.entry("external.metrics.k8s.io", "monitoring/prometheus-adapter"));
        MetricsPipelines pipelines = new MetricsPipelines(backends);
        assertThat(pipelines.pipelineOf("Pods")).isEqualTo(pipelines.pipelineOf("External")).isEqualTo("monitoring/prometheus-adapter");
        assertThat(pipelines.pipelineOf("Resource")).isEqualTo("kube-system/metrics-server");
    }

    @Test
    void aGroupWhoseApiServiceIsForbiddenAbsentOrLocalIsItsOwnPipeline() {
        mock.server().expect().get().withPath(APISERVICES + "v1beta1.metrics.k8s.io").andReturn(403,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\",\"code\":403}").always();
        apiService("v1beta2.custom.metrics.k8s.io", "custom.metrics.k8s.io", null, null);
        // external.metrics.k8s.io: no APIService (the mock answers 404)

        Map<String, String> backends = MetricsBackends.read(mock.api());

        assertThat(backends).isEmpty();
        MetricsPipelines pipelines = new MetricsPipelines(backends);
        assertThat(pipelines.pipelineOf("Resource")).isEqualTo("metrics.k8s.io");
        assertThat(pipelines.pipelineOf("Object")).isEqualTo("custom.metrics.k8s.io");
        assertThat(pipelines.pipelineOf("External")).isEqualTo("external.metrics.k8s.io");
    }
}
