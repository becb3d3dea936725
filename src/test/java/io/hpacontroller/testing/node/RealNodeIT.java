package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The real-node fixture itself, on a node of its own beside the shared one: real pods burn the CPU asked of
 * them, metrics.k8s.io reports it, and closing leaves nothing mounted, running or configured on the host.
 */
@org.junit.jupiter.api.parallel.ResourceLock(value = RealNodeExtension.NODE, mode = org.junit.jupiter.api.parallel.ResourceAccessMode.READ)
class RealNodeIT {

    private static final ResourceDefinitionContext POD_METRICS = new ResourceDefinitionContext.Builder()
            .withGroup("metrics.k8s.io").withVersion("v1beta1").withKind("PodMetrics").withPlural("pods").withNamespaced(true).build();

    @Test
    void podsBurnWhatTheyAreAskedAndTheMetricsApiReportsItAndNothingIsLeftAfter() throws Exception {
        Path dir;
        RealNode.Layout layout = new RealNode.Layout(1); // beside the shared node
        try (RealNode node = RealNode.start("fixture", layout, List.of())) {
            dir = node.directory();
            TestNamespace ns = node.newNamespace("fixture");
            try (CpuWorkload load = CpuWorkload.create(node, ns.name(), "burn", 2, CpuWorkload.Shape.of("20m", Duration.ofSeconds(3)))) {
                await("2 ready pods").atMost(Duration.ofMinutes(3)).until(() -> load.readyPods().size() == 2);
                node.note("2 pods ready");
                load.demand(100); // 50m each
                await("metrics.k8s.io to report about 50m per pod").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2))
                        .until(() -> cpuMillis(node, ns.name()).values().stream().filter(m -> m > 35 && m < 70).count() == 2);
                node.note("metrics: " + cpuMillis(node, ns.name()));
                load.demand(0);
                await("metrics.k8s.io to report the pods idle").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2))
                        .conditionEvaluationListener(c -> node.note("idle? " + cpuMillis(node, ns.name())))
                        .until(() -> cpuMillis(node, ns.name()).values().stream().filter(m -> m < 4).count() == 2);
                node.note("idle metrics: " + cpuMillis(node, ns.name()));
            }
        }
        String mounts = Files.readString(Path.of("/proc/self/mounts"));
        assertThat(mounts).doesNotContain(dir.toString());
        assertThat(Host.run(List.of("ip", "link", "show", layout.bridge()), false).exit()).isNotZero();
        assertThat(Path.of("/sys/fs/cgroup/cpu", layout.cgroupRoot())).doesNotExist();
        assertThat(ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains(dir.toString()))).isEmpty();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Long> cpuMillis(RealNode node, String namespace) {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (GenericKubernetesResource pm : node.adminClient().genericKubernetesResources(POD_METRICS).inNamespace(namespace).list().getItems()) {
            long total = 0;
            for (Map<String, Object> c : (List<Map<String, Object>>) pm.getAdditionalProperties().get("containers")) {
                String cpu = (String) ((Map<String, Object>) c.get("usage")).get("cpu");
                total += new io.fabric8.kubernetes.api.model.Quantity(cpu).getNumericalAmount().multiply(java.math.BigDecimal.valueOf(1000)).longValue();
            }
            out.put(pm.getMetadata().getName(), total);
        }
        return out;
    }
}
