package io.hpacontroller.core.memory;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.MetricsSource.ObjectMetricValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemoryClusterTest {

    private static final CrossVersionObjectReference WEB = new CrossVersionObjectReferenceBuilder()
            .withApiVersion("apps/v1").withKind("Deployment").withName("web").build();
    private static final CrossVersionObjectReference INGRESS = new CrossVersionObjectReferenceBuilder()
            .withApiVersion("networking.k8s.io/v1").withKind("Ingress").withName("web").build();
    private static final HorizontalPodAutoscaler HPA = new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web")
            .withNamespace("default").endMetadata().build();

    private final InMemoryCluster world = new InMemoryCluster();

    {
        world.scale = new ScaleTarget(3, 3, "app=web", "7");
    }

    @Test
    void aWriteGuardedByTheResourceVersionReadIsAcceptedAndMovesTheVersion() throws ApiException {
        ScaleTarget read = world.get("default", WEB);
        world.update("default", WEB, read, 5);
        assertThat(world.scaleWrites).containsExactly(5);
        assertThat(world.resourceVersionsWritten).containsExactly("7");
        assertThat(world.get("default", WEB)).isEqualTo(new ScaleTarget(5, 3, "app=web", "8"));
    }

    @Test
    void aWriteFromAStaleReadConflictsAsTheApiServerAnswersAndChangesNothing() throws ApiException {
        ScaleTarget read = world.get("default", WEB);
        world.scaledByOthers(4); // kubectl scale between the read and the write
        assertThatThrownBy(() -> world.update("default", WEB, read, 6)).isInstanceOf(ApiException.Conflict.class)
                .hasMessage("Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; "
                        + "please apply your changes to the latest version and try again");
        assertThat(world.scaleWrites).isEmpty();
        assertThat(world.get("default", WEB)).isEqualTo(new ScaleTarget(4, 3, "app=web", "8"));
    }

    @Test
    void aTargetThatIsNotThereIsNotFound() {
        world.targetName = "api";
        assertThatThrownBy(() -> world.get("default", WEB)).isInstanceOf(ApiException.NotFound.class)
                .hasMessage("Deployment \"web\" not found");
        world.targetName = null;
        world.scale = null;
        assertThatThrownBy(() -> world.get("default", WEB)).isInstanceOf(ApiException.NotFound.class);
    }

    @Test
    void aFailingMetricFailsAsAMetricsApiThatIsNotThereAndOnlyThatMetric() throws ApiException {
        world.failingMetrics.add("qps");
        world.externalMetrics.put("queue", List.of(5000L));
        world.externalMetricTimes.put("queue", 1234L);
        assertThatThrownBy(() -> world.externalMetric("default", "qps", Selector.everything()))
                .hasMessage("unable to fetch metrics from external metrics API: the server could not find the requested resource "
                        + "(get qps.external.metrics.k8s.io)");
        assertThatThrownBy(() -> world.podsMetric("default", "qps", Selector.everything(), Selector.everything()))
                .hasMessageEndingWith("(get pods.custom.metrics.k8s.io *)");
        assertThat(world.externalMetric("default", "queue", Selector.everything()).values()).containsExactly(5000L);
        assertThat(world.externalMetric("default", "queue", Selector.everything()).timestamp()).isEqualTo(1234L);
        world.failingMetrics.add("cpu");
        assertThatThrownBy(() -> world.podUsage("default", Selector.everything(), "cpu"))
                .hasMessage("unable to fetch metrics from resource metrics API: the server could not find the requested resource "
                        + "(get pods.metrics.k8s.io)");
    }

    @Test
    void anObjectMetricThatIsNotThereFailsNamingTheObjectsResource() throws ApiException {
        assertThatThrownBy(() -> world.objectMetric("default", "requests", INGRESS, Selector.everything()))
                .hasMessageEndingWith("(get ingresses.networking.k8s.io.custom.metrics.k8s.io web)");
        world.objectMetrics.put("requests", new ObjectMetricValue(200_000, 99));
        assertThat(world.objectMetric("default", "requests", INGRESS, Selector.everything())).isEqualTo(new ObjectMetricValue(200_000, 99));
    }

    @Test
    void theRecordersKeepWhatTheCoreWroteInOrderUntilCleared() throws ApiException {
        HorizontalPodAutoscalerStatus first = new HorizontalPodAutoscalerStatusBuilder().withDesiredReplicas(4).build();
        HorizontalPodAutoscalerStatus second = new HorizontalPodAutoscalerStatusBuilder().withDesiredReplicas(5).build();
        world.write(HPA, first);
        world.write(HPA, second, null);
        world.record(HPA, EventRecorder.Type.Normal, "SuccessfulRescale", "New size: 5");
        world.record(HPA, EventRecorder.Type.Warning, "FailedGetScale", "boom");
        assertThat(world.statusWrites).containsExactly(first, second);
        assertThat(world.lastStatus()).isSameAs(second);
        assertThat(world.eventReasons()).containsExactly("SuccessfulRescale", "FailedGetScale");
        assertThat(world.eventMessages("FailedGetScale")).containsExactly("boom");
        assertThat(world.events.get(0)).isEqualTo(new InMemoryCluster.Event(EventRecorder.Type.Normal, "SuccessfulRescale", "New size: 5"));
        world.clearWrites();
        assertThat(world.statusWrites).isEmpty();
        assertThat(world.events).isEmpty();
    }

    @Test
    void theHooksComeBeforeTheCallsAndAfterAnAcceptedWrite() throws ApiException {
        List<String> calls = new ArrayList<>();
        InMemoryCluster hooked = new InMemoryCluster() {
            @Override
            protected void beforeScaleWrite() throws ApiException {
                calls.add("before write");
                if (calls.size() == 1) {
                    throw new ApiException("injected");
                }
            }

            @Override
            protected void scaleWritten(int replicas) {
                calls.add("written " + replicas);
            }

            @Override
            protected void beforeMetricRead(MetricRead read) {
                calls.add(read.api() + " " + read.metric());
            }
        };
        hooked.scale = new ScaleTarget(1, 1, "app=web", "1");
        ScaleTarget read = hooked.get("default", WEB);
        assertThatThrownBy(() -> hooked.update("default", WEB, read, 2)).hasMessage("injected");
        hooked.update("default", WEB, read, 2);
        hooked.podUsage("default", Selector.everything(), "memory");
        assertThat(calls).containsExactly("before write", "before write", "written 2", "RESOURCE memory");
        assertThat(hooked.scaleWrites).containsExactly(2);
    }
}
