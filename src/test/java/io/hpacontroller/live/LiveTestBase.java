package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.testing.MockCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/** A mock cluster per test, and a live controller started against it on demand. */
abstract class LiveTestBase {

    static final String NS = "demo";
    MockCluster cluster;
    KubernetesClient client;
    HorizontalController controller;

    @BeforeEach
    void startCluster() {
        cluster = MockCluster.start();
        client = cluster.client();
    }

    @AfterEach
    void stopAll() {
        if (controller != null) {
            controller.close();
        }
        cluster.close();
    }

    HorizontalController startController(ControllerOptions options) throws InterruptedException {
        controller = new HorizontalController(cluster.newClient(), options, Clock.systemUTC(), WriteGate.alwaysOpen());
        controller.start(Duration.ofSeconds(10));
        return controller;
    }

    int replicas(String deployment) {
        return client.apps().deployments().inNamespace(NS).withName(deployment).get().getSpec().getReplicas();
    }

    HorizontalPodAutoscaler readHpa(String name) {
        return client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName(name).get();
    }

    void create(HorizontalPodAutoscaler hpa) {
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(hpa).create();
    }

    static String condition(HorizontalPodAutoscaler hpa, String type) {
        if (hpa == null || hpa.getStatus() == null) {
            return null;
        }
        for (HorizontalPodAutoscalerCondition c : hpa.getStatus().getConditions()) {
            if (c.getType().equals(type)) {
                return c.getStatus() + "/" + c.getReason();
            }
        }
        return null;
    }

    List<Event> events(String reason) {
        return client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> reason.equals(e.getReason())).collect(Collectors.toList());
    }
}
