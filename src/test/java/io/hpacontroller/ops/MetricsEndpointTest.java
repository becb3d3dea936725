package io.hpacontroller.ops;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The scrape answers in text for every format a scraper may ask for; the protobuf format is not in the jar. */
class MetricsEndpointTest {

    private static final String PROTOBUF = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";

    private static EndpointServer.Response scrape(String accept) throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        Counter.builder().name("hpa_test_syncs_total").help("syncs").register(registry).inc(3);
        Map<String, List<String>> headers = accept == null ? Map.of() : Map.of("accept", List.of(accept));
        return new MetricsEndpoint(registry).handle(new EndpointServer.Request("GET", MetricsEndpoint.PATH, null, headers));
    }

    @Test
    void aScrapeAskingForProtobufGetsTheTextFormat() throws Exception {
        // what Prometheus sends with native histograms enabled: protobuf first, text as the fallback
        for (String accept : List.of(PROTOBUF, PROTOBUF + ",text/plain;version=0.0.4;q=0.5,*/*;q=0.1")) {
            EndpointServer.Response r = scrape(accept);
            assertThat(r.status()).as(accept).isEqualTo(200);
            assertThat(r.headers().get("Content-Type")).as(accept).startsWith("text/plain; version=0.0.4");
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).as(accept)
                    .contains("# TYPE hpa_test_syncs_total counter\n").contains("hpa_test_syncs_total 3.0\n");
        }
        assertThat(io.prometheus.metrics.expositionformats.ExpositionFormats.init().getPrometheusProtobufWriter().isAvailable())
                .as("the protobuf exposition jar is left out (pom.xml)").isFalse();
    }

    @Test
    void textAndOpenMetricsAreServedAsAsked() throws Exception {
        assertThat(scrape(null).headers().get("Content-Type")).startsWith("text/plain; version=0.0.4");
        EndpointServer.Response open = scrape("application/openmetrics-text;version=1.0.0");
        assertThat(open.headers().get("Content-Type")).startsWith("application/openmetrics-text");
        assertThat(new String(open.body(), StandardCharsets.UTF_8)).contains("hpa_test_syncs_total 3.0").endsWith("# EOF\n");
    }
}
