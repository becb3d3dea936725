package io.hpacontroller.api;

import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.scale.ScaleSubresource;
import io.hpacontroller.testing.MockKubeApi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The names the API server's validation takes but that mean something in a URL ({@code ?}, {@code #}, a space, a newline):
 * each request path carries them as one encoded segment, and the error names them as the user wrote them.
 */
class EncodedPathsTest {

    @RegisterExtension
    final MockKubeApi mock = new MockKubeApi();

    @BeforeEach
    void start() {
        mock.server().expect().get().withPath("/apis/apps/v1").andReturn(200, new APIResourceListBuilder().withGroupVersion("apps/v1")
                .addToResources(new APIResourceBuilder().withName("deployments").withKind("Deployment").withNamespaced(true).build(),
                        new APIResourceBuilder().withName("deployments/scale").withKind("Scale").withNamespaced(true).build()).build()).always();
    }

    /** The paths the server received, but discovery's. */
    private List<String> paths() throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (RecordedRequest r; (r = mock.server().takeRequest(100, TimeUnit.MILLISECONDS)) != null; ) {
            if (!r.getPath().equals("/apis/apps/v1")) {
                out.add(r.getPath());
            }
        }
        return out;
    }

    @Test
    void metricNamesAndObjectNamesAreOneSegmentEach() throws Exception {
        RestMetrics metrics = new RestMetrics(mock.api(), new ApiDiscovery(mock.api(), Clock.systemUTC()));

        assertThatThrownBy(() -> metrics.podsMetric("shop", "qps?x=1\n#", Selector.everything(), Selector.parse("a=b")))
                .isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> metrics.externalMetric("shop", "queue a+b", Selector.everything())).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> metrics.objectMetric("shop", "rps;x", new CrossVersionObjectReference("apps/v1", "Deployment", "web?x="),
                Selector.everything())).isInstanceOf(ApiException.class);

        assertThat(paths()).containsExactly(
                "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/qps%3Fx%3D1%0A%23?metricLabelSelector=a%3Db",
                "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue%20a%2Bb",
                "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/deployments.apps/web%3Fx%3D/rps%3Bx");
    }

    @Test
    void aTargetNameIsOneSegmentAndTheErrorNamesItAsWritten() throws Exception {
        ScaleSubresource scales = new ScaleSubresource(mock.api(), new ApiDiscovery(mock.api(), Clock.systemUTC()), WriteGate.alwaysOpen());

        assertThatThrownBy(() -> scales.get("shop", new CrossVersionObjectReference("apps/v1", "Deployment", "web?x=")))
                .isInstanceOf(ApiException.NotFound.class).hasMessageEndingWith("(get deployments.apps web?x=)");
        assertThat(paths()).containsExactly("/apis/apps/v1/namespaces/shop/deployments/web%3Fx%3D/scale");
        assertThat(HpaApi.MIRROR.path("shop", "web")).isEqualTo("/apis/autoscaling.hpa-controller.io/v1/namespaces/shop/horizontalpodautoscalers/web");
    }

    @Test
    void anApiVersionWhoseGroupIsNoSegmentIsNeverAskedFor() throws Exception {
        ApiDiscovery discovery = new ApiDiscovery(mock.api(), Clock.systemUTC());

        assertThatThrownBy(() -> discovery.resolve("../v1", "Deployment")).isInstanceOf(ApiException.NotFound.class)
                .hasMessage("unexpected GroupVersion string: ../v1");
        assertThat(paths()).isEmpty();
    }
}
