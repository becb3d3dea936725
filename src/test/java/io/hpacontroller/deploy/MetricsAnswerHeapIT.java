package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.FakeMetricsServer;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 29, item 2: an external metrics adapter answering 250,000 items (23 MB) for one HPA crash-looped both
 * replicas (OutOfMemoryError under the chart's 256Mi limit). Here the jar that ships runs with the chart's JVM
 * options and half the chart's memory limit as its heap (the image's MaxRAMPercentage=50) against a real API server
 * whose external metrics API answers 50 MB for one HPA: the controller lives, that HPA alone fails with a
 * FailedGetExternalMetric condition and event, another HPA scales. The heap, from the GC log, is printed.
 */
@RealKube
class MetricsAnswerHeapIT {

    private static final long ANSWER_BYTES = 50L * 1000 * 1000;
    private static final Pattern GC = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private static HorizontalPodAutoscaler external(String name, String metric, String averageValue) {
        MetricTarget target = new MetricTarget(null, new Quantity(averageValue), "AverageValue", null);
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(name).endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(4).addNewMetric().withType("External").withNewExternal().withNewMetric().withName(metric)
                .endMetric().withTarget(target).endExternal().endMetric().endSpec().build();
    }

    /** The chart's JVM options, and -Xmx at half its memory limit, as the image's MaxRAMPercentage=50 makes it in a pod. */
    static List<String> chartJvm(Path gcLog) {
        var container = HelmChart.renderDefaults().single(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
        String options = container.getEnv().stream().filter(e -> e.getName().equals("JDK_JAVA_OPTIONS")).map(EnvVar::getValue).findFirst().orElseThrow();
        long limit = container.getResources().getLimits().get("memory").getNumericalAmount().longValueExact();
        List<String> jvm = new ArrayList<>(List.of(options.split(" ")));
        jvm.add("-Xmx" + (limit / 2 / (1024 * 1024)) + "m");
        jvm.add("-Xlog:gc:file=" + gcLog);
        return jvm;
    }

    @Test
    void aFiftyMegabyteAnswerFailsItsHpaAloneUnderTheChartsHeap(KubeControlPlane kube, TestNamespace ns) throws IOException {
        ChartRelease release = ChartReleases.shipped(kube);
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("flooded", 1));
        ns.create(Workloads.deployment("calm", 1));
        ns.metrics().externalFlood("flood", ANSWER_BYTES).externalMetric("calm_queue", "40"); // 4 replicas at 10 each
        ns.create(external("flooded", "flood", "10"));
        ns.create(external("calm", "calm_queue", "10"));
        Path gcLog = kube.directory().resolve("logs/" + ns.name() + "-gc.log");
        List<String> jvm = chartJvm(gcLog);

        ChildProcess controller = ControllerProcess.start(jvm, "heap", release.kubeconfigForPod("heap"),
                kube.directory().resolve("logs/" + ns.name() + "-controller.log"), "--namespace=" + ns.name(), "--hpa-apis=autoscaling/v2",
                "--leader-elect=false", "--horizontal-pod-autoscaler-sync-period=1s");
        try {
            await().atMost(Duration.ofMinutes(6)).untilAsserted(() -> {
                controller.checkAlive();
                assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("calm").get().getSpec().getReplicas()).isEqualTo(4);
                HorizontalPodAutoscaler flooded = admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("flooded").get();
                assertThat(flooded.getStatus()).isNotNull();
                assertThat(flooded.getStatus().getConditions()).anySatisfy(c -> {
                    assertThat(c.getType() + "=" + c.getStatus() + "/" + c.getReason()).isEqualTo("ScalingActive=False/FailedGetExternalMetric");
                    assertThat(c.getMessage()).contains("the answer has more than 50000 items (--metrics-max-items)");
                });
                assertThat(admin.v1().events().inNamespace(ns.name()).withField("reason", "FailedGetExternalMetric").list().getItems())
                        .anySatisfy(e -> assertThat(e.getMessage()).contains("more than 50000 items"));
            });
            // more answers of 50 MB (every sync asks again): each is read as far as the limit and dropped
            long asked = ns.metrics().requests(FakeMetricsServer.Api.EXTERNAL);
            await().atMost(Duration.ofMinutes(10)).untilAsserted(() -> {
                controller.checkAlive();
                assertThat(ns.metrics().requests(FakeMetricsServer.Api.EXTERNAL)).isGreaterThan(asked + 20);
            });
            controller.checkAlive();
            assertThat(admin.apps().deployments().inNamespace(ns.name()).withName("flooded").get().getSpec().getReplicas()).isEqualTo(1);
        } finally {
            controller.stop(Duration.ofSeconds(10));
        }
        long maxBefore = 0;
        long maxAfter = 0;
        long capacity = 0;
        int collections = 0;
        for (String line : Files.readAllLines(gcLog)) {
            Matcher m = GC.matcher(line);
            if (m.find()) {
                collections++;
                maxBefore = Math.max(maxBefore, Long.parseLong(m.group(1)));
                maxAfter = Math.max(maxAfter, Long.parseLong(m.group(2)));
                capacity = Math.max(capacity, Long.parseLong(m.group(3)));
            }
        }
        System.out.printf("heap under %d-byte external answers (%s): %d collections, at most %d MB before a collection, %d MB after, %d MB committed%n",
                ANSWER_BYTES, String.join(" ", jvm), collections, maxBefore, maxAfter, capacity);
        assertThat(collections).as("the GC log of " + gcLog).isPositive();
    }
}
