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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

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
 *
 * <p>"Their period" is what this machine gives a period right now, measured in the same run by a control: a second
 * controller in this JVM (same API server, same fake adapter, the same 100 + 20 HPAs in a namespace of its own) whose
 * custom metrics API answers at once, with the 3 workers the bound leaves to the healthy HPAs (5 workers minus the 2
 * a slow API may hold: the bound's designed cost). A stall of the machine (the JVM or kube-apiserver not scheduled on
 * a loaded machine, a GC) makes both controllers' syncs late alike; only the slow source taking more than its 2
 * workers, or delaying the healthy syncs in any other way (a shared connection pool, a lock), makes the first one's
 * later. So the healthy HPAs' p99 interval must be within the period + 2 s + 1.5 times the control's lateness (its
 * p99 interval past the period): on a quiet machine the control's lateness is about 0, and this is the issue's
 * "period + 2 s"; on a loaded one the two p99s of about 600 intervals each differ by chance by more than 2 s (21.2 s
 * beside the hanging API, 18.8 s in the control, at a load of 50, with equal queue waits), hence the factor. Without
 * the control, two CPU hogs and the other ITs beside it made the p99 14.7 s, from stalls alone. The test keeps its
 * power: with the bound removed ({@code --metrics-max-inflight-per-source=1000}) it fails by tens of seconds (p99
 * 38.6 s against an allowed 14.0 s, the control's p99 being 11.3 s).
 */
@RealKube
@ResourceLock(RealKubeExtension.MACHINE)
@Order(RealKubeExtension.ORDER_MACHINE_SHORT)
class SlowMetricsSourceIT {

    private static final Duration PERIOD = Duration.ofSeconds(10);
    /** The contract: a healthy HPA's p99 sync interval within its period + 2 s (+ the machine's lateness, as the control measures it). */
    private static final Duration LATE = Duration.ofSeconds(2);
    /** The default of {@code --concurrent-horizontal-pod-autoscaler-syncs}. */
    private static final int WORKERS = 5;
    private static final int HEALTHY = 100;
    /** The HPAs on the custom metrics API: hanging beside the healthy ones, answered at once in the control. */
    private static final int CUSTOM = 20;
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

    /** The summary of the logged requests' durations (received to answer complete). */
    private static String durations(KubeControlPlane kube, AuditEvent.Filter filter) {
        return summary(kube.audit().events(filter).stream().map(e -> Duration.between(e.received(), e.completed())).toList(), "requests");
    }

    /** "n WHAT, p50 ..., p99 ..., max ..." of the durations, or "none". */
    private static String summary(List<Duration> durations, String what) {
        if (durations.isEmpty()) {
            return "none";
        }
        List<Duration> d = new ArrayList<>(durations);
        Collections.sort(d);
        return d.size() + " " + what + ", p50 " + percentile(d, 0.5) + ", p99 " + percentile(d, 0.99) + ", max " + percentile(d, 1);
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

    /**
     * Creates {@link #HEALTHY} HPAs on the external metrics API (at target: no scale) and {@link #CUSTOM} on the custom
     * one, which hangs or answers at once (at target), each with its Widget, a few at a time (a loaded API server
     * answers each create late; one after the other, the 240 HPAs took two minutes at a load of 37).
     */
    private static List<Future<?>> hpas(ExecutorService creators, TestNamespace ns, boolean hanging) {
        if (hanging) {
            ns.metrics().trickle(FakeMetricsServer.Api.CUSTOM);
        }
        List<Future<?>> created = new ArrayList<>();
        for (int i = 0; i < HEALTHY; i++) {
            String name = "healthy-" + i;
            ns.metrics().externalMetric(name, "1");
            created.add(creators.submit(() -> {
                widget(ns, name);
                ns.create(hpa(ns.name(), name, "example.com/v1", "Widget", name, 1, 4, externalAverage(name, "1")));
            }));
        }
        for (int i = 0; i < CUSTOM; i++) {
            String name = "custom-" + i;
            ns.metrics().objectMetric("namespaces", ns.name(), name, "10");
            created.add(creators.submit(() -> {
                widget(ns, name);
                ns.create(hpa(ns.name(), name, "example.com/v1", "Widget", name, 1, 4, namespaceObjectMetric(ns.name(), name)));
            }));
        }
        return created;
    }

    /** Whether every healthy HPA of the namespace has asked for its metric, and its custom metrics API was asked. */
    private static boolean synced(TestNamespace ns) {
        for (int i = 0; i < HEALTHY; i++) {
            if (ns.metrics().externalRequests("healthy-" + i).isEmpty()) {
                return false;
            }
        }
        return ns.metrics().requests(FakeMetricsServer.Api.CUSTOM) > 0;
    }

    /** The healthy HPAs' intervals between syncs in [from, to], sorted (for {@link #percentile}). */
    private static List<Duration> intervals(TestNamespace ns, Instant from, Instant to) {
        List<Duration> gaps = new ArrayList<>();
        for (int i = 0; i < HEALTHY; i++) {
            gaps.addAll(gaps(ns.metrics().externalRequests("healthy-" + i), from, to));
        }
        Collections.sort(gaps);
        return gaps;
    }

    /** Records, for the healthy HPAs' syncs, when each ended and how long it waited in the queue after it was due. */
    private static List<Map.Entry<Instant, Duration>> recordQueueWaits(InProcessController controller) {
        List<Map.Entry<Instant, Duration>> waits = new CopyOnWriteArrayList<>();
        controller.runtime().controller().addListener(r -> {
            if (r.key().name().startsWith("healthy-")) {
                waits.add(Map.entry(Instant.now(), Duration.ofNanos(r.queueWaitNanos())));
            }
        });
        return waits;
    }

    /** The summary of the queue waits of the syncs that ended in [from, to]. */
    private static String queueWaits(List<Map.Entry<Instant, Duration>> waits, Instant from, Instant to) {
        return summary(waits.stream().filter(e -> e.getKey().isAfter(from) && e.getKey().isBefore(to)).map(Map.Entry::getValue).toList(), "syncs");
    }

    @Test
    void aHangingMetricsApiDelaysOnlyTheHpasThatUseIt(KubeControlPlane kube, TestNamespace ns) throws Exception {
        KubernetesClient admin = ns.admin();
        Workloads.installWidgetCrd(admin);
        TestNamespace control = kube.newNamespace("slow-metrics-control");
        ExecutorService creators = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> created = new ArrayList<>(hpas(creators, ns, true));
            created.addAll(hpas(creators, control, false));
            for (Future<?> f : created) {
                f.get();
            }
        } finally {
            creators.shutdownNow();
        }
        // the defaults of run: 5 workers, a 10 s request timeout, 2 requests in flight to a slow metrics API
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), PERIOD, WORKERS, List.of(ns.name()), Duration.ofSeconds(10));
        // the control: the workers the bound leaves to the healthy HPAs, and no slow API
        ControllerOptions controlOptions = options.withNamespaces(List.of(control.name()))
                .withWorkers(WORKERS - RestMetrics.Limits.DEFAULT.maxInFlightPerSource());
        try (InProcessController controller = InProcessController.start(ChartReleases.shipped(kube).client(), options, null);
             InProcessController controlController = InProcessController.start(ChartReleases.shipped(kube).client(), controlOptions, null)) {
            var waits = recordQueueWaits(controller);
            var controlWaits = recordQueueWaits(controlController);
            await().atMost(Duration.ofMinutes(3)).until(() -> synced(ns) && synced(control));
            Instant from = Instant.now().plus(SETTLE);
            Instant to = from.plus(WINDOW);
            // the measurement: the syncs of a fixed window, whatever their count
            Thread.sleep(Duration.between(Instant.now(), to).toMillis());

            List<Duration> gaps = intervals(ns, from, to);
            List<Duration> controlGaps = intervals(control, from, to);
            Duration p99 = percentile(gaps, 0.99);
            Duration controlP99 = percentile(controlGaps, 0.99);
            String measured = String.format("healthy HPAs' sync intervals over %s: %s (queue waits: %s) beside the hanging API; "
                            + "%s (queue waits: %s) in the control; custom metrics API requests %d and %d",
                    WINDOW, summary(gaps, "gaps"), queueWaits(waits, from, to), summary(controlGaps, "gaps"), queueWaits(controlWaits, from, to),
                    ns.metrics().requests(FakeMetricsServer.Api.CUSTOM), control.metrics().requests(FakeMetricsServer.Api.CUSTOM));
            System.out.println(measured);
            System.out.println("in the API server (audit log), durations of the external metrics API's requests: "
                    + durations(kube, ns.audit().apiGroup("external.metrics.k8s.io").between(from, to))
                    + "; of the custom metrics API's: " + durations(kube, ns.audit().apiGroup("custom.metrics.k8s.io").between(from, to)));
            // the lateness the machine gives (the control's p99 past the period), with the noise of two p99s under load
            Duration machineLate = Collections.max(List.of(Duration.ZERO, controlP99.minus(PERIOD)));
            assertThat(p99).as("p99 of the healthy HPAs' sync intervals beside a hanging API (%s)", measured)
                    .isLessThanOrEqualTo(PERIOD.plus(LATE).plus(machineLate.multipliedBy(3).dividedBy(2)));

            // the hanging HPAs: a failed metric (ScalingActive=False), and the bulkhead refused some of them at once
            List<HorizontalPodAutoscalerCondition> hanging = new ArrayList<>();
            for (int i = 0; i < CUSTOM; i++) {
                hanging.add(scalingActive(admin, ns, "custom-" + i));
            }
            assertThat(hanging).allSatisfy(c -> {
                assertThat(c).isNotNull();
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo("FailedGetObjectMetric");
            });
            await().atMost(Duration.ofMinutes(2)).until(() -> {
                for (int i = 0; i < CUSTOM; i++) {
                    HorizontalPodAutoscalerCondition c = scalingActive(admin, ns, "custom-" + i);
                    if (c != null && c.getMessage().contains("--metrics-max-inflight-per-source=2")) {
                        return true;
                    }
                }
                return false;
            });
            assertThat(scalingActive(admin, ns, "healthy-0").getReason()).isEqualTo("ValidMetricFound");
            assertThat(scalingActive(admin, control, "custom-0").getReason()).isEqualTo("ValidMetricFound");
        }
    }
}
