package io.hpacontroller.metrics;

import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.FakeMetricsServer;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 35, item 5: a hanging metrics API delays only the HPAs that use it. 20 HPAs whose custom metrics API answers
 * a space a second and never ends, beside 100 HPAs on the external metrics API, with the default 5 workers and the
 * default bounds (a metrics request ends after 10 s; 2 requests in flight to a slow API): the healthy HPAs keep a p99
 * interval between syncs within their period + 2 s, measured where their requests arrive (the fake adapter's request
 * log), and the hanging HPAs' metric fails (FailedGetObjectMetric), some of them refused by the bulkhead at once.
 * Without the bound the hanging requests hold all 5 workers (20 x 11 s per 10 s period) and the healthy HPAs' p99 is
 * several periods.
 */
@RealKube
@ResourceLock(RealKubeExtension.MACHINE)
@Order(RealKubeExtension.ORDER_MACHINE_SHORT)
class SlowMetricsSourceIT {

    private static final Duration PERIOD = Duration.ofSeconds(10);
    /** The contract: a healthy HPA's p99 sync interval within its period + 2 s. */
    private static final Duration LATE = Duration.ofSeconds(2);
    private static final int HEALTHY = 100;
    private static final int HANGING = 20;
    /** The requests sent before the API was seen slow end within the timeout and its grace: measured after them. */
    private static final Duration SETTLE = Duration.ofSeconds(12);
    private static final Duration WINDOW = Duration.ofSeconds(60);

    private static MetricSpec namespaceObjectMetric(String namespace, String metric) {
        return new MetricSpecBuilder().withType("Object").withNewObject()
                .withNewDescribedObject().withApiVersion("v1").withKind("Namespace").withName(namespace).endDescribedObject()
                .withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("Value").withNewValue("10").endTarget().endObject().build();
    }

    /** A Widget of one replica whose scale selects {@code app=NAME} (nothing controls it: no pods). */
    private static void widget(TestNamespace ns, String name) {
        var widgets = ns.admin().genericKubernetesResources(Workloads.WIDGETS).inNamespace(ns.name());
        GenericKubernetesResource w = widgets.resource(Workloads.widget(name, 1)).create();
        w.getAdditionalProperties().put("status", Map.of("replicas", 1, "selector", "app=" + name));
        widgets.resource(w).updateStatus();
    }

    /** The gaps between the arrivals in [from, to], the window's edges included: a starved HPA shows as one long gap. */
    private static List<Duration> gaps(List<Instant> arrivals, Instant from, Instant to) {
        List<Duration> out = new ArrayList<>();
        Instant last = from;
        for (Instant t : arrivals) {
            if (t.isAfter(from) && t.isBefore(to)) {
                out.add(Duration.between(last, t));
                last = t;
            }
        }
        out.add(Duration.between(last, to));
        return out;
    }

    /** "n requests, p50 ..., p99 ..., max ..." of the logged requests' durations (received to answer complete). */
    private static String durations(KubeControlPlane kube, AuditEvent.Filter filter) {
        List<Duration> d = new ArrayList<>(kube.audit().events(filter).stream().map(e -> Duration.between(e.received(), e.completed())).toList());
        if (d.isEmpty()) {
            return "none";
        }
        Collections.sort(d);
        return d.size() + " requests, p50 " + percentile(d, 0.5) + ", p99 " + percentile(d, 0.99) + ", max " + percentile(d, 1);
    }

    /** The nearest-rank percentile of a sorted list. */
    private static Duration percentile(List<Duration> sorted, double p) {
        return sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * p) - 1));
    }

    private static HorizontalPodAutoscalerCondition scalingActive(KubernetesClient admin, TestNamespace ns, String name) {
        HorizontalPodAutoscaler hpa = admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(name).get();
        if (hpa.getStatus() == null || hpa.getStatus().getConditions() == null) {
            return null;
        }
        return hpa.getStatus().getConditions().stream().filter(c -> c.getType().equals("ScalingActive")).findFirst().orElse(null);
    }

    @Test
    void aHangingMetricsApiDelaysOnlyTheHpasThatUseIt(KubeControlPlane kube, TestNamespace ns) throws Exception {
        KubernetesClient admin = ns.admin();
        Workloads.installWidgetCrd(admin);
        ns.metrics().trickle(FakeMetricsServer.Api.CUSTOM);
        for (int i = 0; i < HEALTHY; i++) {
            String name = "healthy-" + i;
            widget(ns, name);
            ns.metrics().externalMetric(name, "1"); // at target: no scale
            ns.create(hpa(ns.name(), name, "example.com/v1", "Widget", name, 1, 4, externalAverage(name, "1")));
        }
        for (int i = 0; i < HANGING; i++) {
            String name = "hanging-" + i;
            widget(ns, name);
            ns.create(hpa(ns.name(), name, "example.com/v1", "Widget", name, 1, 4, namespaceObjectMetric(ns.name(), name)));
        }
        // the defaults of run: 5 workers, a 10 s request timeout, 2 requests in flight to a slow metrics API
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), PERIOD, 5, List.of(ns.name()), Duration.ofSeconds(10));
        try (InProcessController controller = InProcessController.start(ChartReleases.shipped(kube).client(), options, null)) {
            await().atMost(Duration.ofMinutes(3)).until(() -> {
                for (int i = 0; i < HEALTHY; i++) {
                    if (ns.metrics().externalRequests("healthy-" + i).isEmpty()) {
                        return false;
                    }
                }
                return ns.metrics().requests(FakeMetricsServer.Api.CUSTOM) > 0;
            });
            Instant from = Instant.now().plus(SETTLE);
            Instant to = from.plus(WINDOW);
            // the measurement: the syncs of a fixed window, whatever their count
            Thread.sleep(Duration.between(Instant.now(), to).toMillis());

            List<Duration> gaps = new ArrayList<>();
            for (int i = 0; i < HEALTHY; i++) {
                gaps.addAll(gaps(ns.metrics().externalRequests("healthy-" + i), from, to));
            }
            Collections.sort(gaps);
            Duration p50 = percentile(gaps, 0.5);
            Duration p99 = percentile(gaps, 0.99);
            Duration max = percentile(gaps, 1);
            System.out.printf("healthy HPAs' sync intervals over %s: %d gaps, p50 %s, p99 %s, max %s; custom metrics API requests %d%n",
                    WINDOW, gaps.size(), p50, p99, max, ns.metrics().requests(FakeMetricsServer.Api.CUSTOM));
            System.out.println("in the API server (audit log), durations of the external metrics API's requests: "
                    + durations(kube, ns.audit().apiGroup("external.metrics.k8s.io").between(from, to))
                    + "; of the custom metrics API's: " + durations(kube, ns.audit().apiGroup("custom.metrics.k8s.io").between(from, to)));
            assertThat(p99).as("p99 of the healthy HPAs' sync intervals (p50 %s, max %s, %d gaps)", p50, max, gaps.size())
                    .isLessThanOrEqualTo(PERIOD.plus(LATE));

            // the hanging HPAs: a failed metric (ScalingActive=False), and the bulkhead refused some of them at once
            List<HorizontalPodAutoscalerCondition> hanging = new ArrayList<>();
            for (int i = 0; i < HANGING; i++) {
                hanging.add(scalingActive(admin, ns, "hanging-" + i));
            }
            assertThat(hanging).allSatisfy(c -> {
                assertThat(c).isNotNull();
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("FailedGetObjectMetric");
            });
            await().atMost(Duration.ofMinutes(2)).until(() -> {
                for (int i = 0; i < HANGING; i++) {
                    HorizontalPodAutoscalerCondition c = scalingActive(admin, ns, "hanging-" + i);
                    if (c != null && c.getMessage().contains("--metrics-max-inflight-per-source=2")) {
                        return true;
                    }
                }
                return false;
            });
            assertThat(scalingActive(admin, ns, "healthy-0").getReason()).isEqualTo("ValidMetricFound");
        }
    }
}
