package io.hpacontroller.metrics;

import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.port.ApiException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a PodMetricsList's text is read: only the fields the controller uses, the rest skipped whatever its shape. */
class RestMetricsTest {

    private static final long AT = Instant.parse("2026-11-23T10:00:00Z").toEpochMilli();

    @Test
    void readsWhatAMetricsServerWrites() throws Exception {
        String body = """
                {"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
                  {"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"},"creationTimestamp":"2026-11-23T10:00:05Z"},
                   "timestamp":"2026-11-23T10:00:00Z","window":"15.012s",
                   "containers":[{"name":"app","usage":{"cpu":"250m","memory":"64Mi"}},{"name":"sidecar","usage":{"cpu":"1234567n","memory":"1024Ki"}}]},
                  {"metadata":{"name":"web-2"},"timestamp":"2026-11-23T10:00:01.5Z","window":"15.012s",
                   "containers":[{"name":"app","usage":{"cpu":"0","memory":"0"}}]}
                ]}""";

        List<PodUsage> pods = RestMetrics.podUsages(body);

        assertThat(pods).containsExactly(
                new PodUsage("web-1", AT, 15_012, List.of(
                        new ContainerUsage("app", ResourceAmounts.of(Map.of("cpu", 250L, "memory", 64L * 1024 * 1024 * 1000))),
                        new ContainerUsage("sidecar", ResourceAmounts.of(Map.of("cpu", 2L, "memory", 1024L * 1024 * 1000))))),
                new PodUsage("web-2", AT + 1_500, 15_012, List.of(new ContainerUsage("app", ResourceAmounts.of(Map.of("cpu", 0L, "memory", 0L))))));
    }

    @Test
    void skipsWhatItDoesNotReadWhateverItsShapeAndTakesTheDefaultsForWhatIsMissing() throws Exception {
        String body = """
                {"metadata":{"items":[{"metadata":{"name":"decoy"}}]},"extra":[[1,{"a":[]}],null],
                 "items":[
                  {"unknown":{"containers":[{"name":"decoy"}]},"metadata":{"name":"a","annotations":{"x":"{"}},
                   "containers":[{"usage":{"cpu":"100m","gpu":{"n":1},"memory":null,"disk":7,"bad":"ten"},"extra":[{}]}]},
                  {"metadata":"not an object","timestamp":null,"window":null,"containers":"not a list"},
                  {"metadata":{"name":"c"},"containers":[null,{"name":"app","usage":[]}]}
                 ]}""";

        List<PodUsage> pods = RestMetrics.podUsages(body);

        assertThat(pods).containsExactly(
                new PodUsage("a", 0, RestMetrics.DEFAULT_WINDOW_MILLIS, List.of(new ContainerUsage(null, ResourceAmounts.of(Map.of("cpu", 100L, "disk", 7_000L))))),
                new PodUsage(null, 0, RestMetrics.DEFAULT_WINDOW_MILLIS, List.of()),
                new PodUsage("c", 0, RestMetrics.DEFAULT_WINDOW_MILLIS, List.of(new ContainerUsage(null, ResourceAmounts.EMPTY),
                        new ContainerUsage("app", ResourceAmounts.EMPTY))));
    }

    @Test
    void anAnswerWithoutItemsHasNoSamples() throws Exception {
        assertThat(RestMetrics.podUsages("{\"kind\":\"PodMetricsList\",\"items\":[]}")).isEmpty();
        assertThat(RestMetrics.podUsages("{\"kind\":\"PodMetricsList\"}")).isEmpty();
        assertThat(RestMetrics.podUsages("{\"kind\":\"PodMetricsList\",\"items\":null}")).isEmpty();
    }

    /** As Go's decoder, which fails the whole answer: the metric fails (FailedGetResourceMetric), it is never "no samples". */
    @Test
    void anAnswerThatIsNotAListIsAnError() {
        assertThatThrownBy(() -> RestMetrics.podUsages("[]")).isInstanceOf(ApiException.class)
                .hasMessage("the answer is not a PodMetricsList: it is not a JSON object");
        assertThatThrownBy(() -> RestMetrics.podUsages("")).isInstanceOf(ApiException.class)
                .hasMessage("the answer is not a PodMetricsList: it is not a JSON object");
        assertThatThrownBy(() -> RestMetrics.podUsages("{\"items\":{}}")).isInstanceOf(ApiException.class)
                .hasMessage("the answer is not a PodMetricsList: its items are not a list");
        assertThatThrownBy(() -> RestMetrics.podUsages("{\"items\":[{},17]}")).isInstanceOf(ApiException.class)
                .hasMessage("the answer is not a PodMetricsList: item 1 is not an object");
        assertThatThrownBy(() -> RestMetrics.podUsages("{\"items\":[]} {}")).isInstanceOf(ApiException.class)
                .hasMessage("the answer is not a PodMetricsList: text follows the object");
    }

    @Test
    void moreItemsThanTheLimitFailTheQuery() throws Exception {
        String item = "{\"metadata\":{\"name\":\"p\"},\"containers\":[]}";
        String atLimit = "{\"items\":[" + String.join(",", java.util.Collections.nCopies(3, item)) + "]}";
        try (var p = new com.fasterxml.jackson.core.JsonFactory().createParser(atLimit)) {
            assertThat(RestMetrics.podUsages(p, 3)).hasSize(3);
        }
        try (var p = new com.fasterxml.jackson.core.JsonFactory().createParser(atLimit)) {
            assertThatThrownBy(() -> RestMetrics.podUsages(p, 2)).isInstanceOf(ApiException.class)
                    .hasMessage("the answer has more than 2 items (--metrics-max-items)");
        }
    }

    @Test
    void aWindowThatIsNotADurationFailsTheQuery() {
        assertThatThrownBy(() -> RestMetrics.podUsages("{\"items\":[{\"metadata\":{\"name\":\"a\"},\"window\":\"soon\"}]}"))
                .isInstanceOf(ApiException.class).hasMessage("the resource metrics API returned a window that is not a duration: soon");
    }

    @Test
    void textThatIsNotJsonIsAnError() {
        assertThatThrownBy(() -> RestMetrics.podUsages("{\"items\":[{\"metadata\":")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> RestMetrics.podUsages("<html>")).isInstanceOf(IOException.class);
    }
}
