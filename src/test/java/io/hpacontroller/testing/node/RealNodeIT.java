package io.hpacontroller.testing.node;

import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The real-node fixture itself, on a node of its own beside the shared one: real pods burn the CPU asked of
 * them, metrics.k8s.io reports it, and closing leaves nothing mounted, running or configured on the host.
 */
@org.junit.jupiter.api.parallel.ResourceLock(value = RealNodeExtension.NODE, mode = org.junit.jupiter.api.parallel.ResourceAccessMode.READ)
class RealNodeIT {

    @Test
    void podsBurnWhatTheyAreAskedAndTheMetricsApiReportsItAndNothingIsLeftAfter() throws Exception {
        Path dir;
        RealNode.Layout layout = RealNode.Layout.shared().next(); // beside the shared node
        try (RealNode node = RealNode.start("fixture", layout, List.of())) {
            dir = node.directory();
            TestNamespace ns = node.newNamespace("fixture");
            try (CpuWorkload load = CpuWorkload.create(node, ns.name(), "burn", 2, CpuWorkload.Shape.of("20m", Duration.ofSeconds(3)))) {
                await("2 ready pods").atMost(Duration.ofMinutes(3)).until(() -> load.readyPods().size() == 2);
                node.note("2 pods ready");
                load.demand(100); // 50m each
                await("metrics.k8s.io to report about 50m per pod").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2))
                        .until(() -> node.podCpuMillis(ns.name()).values().stream().filter(m -> m > 35 && m < 70).count() == 2);
                node.note("metrics: " + node.podCpuMillis(ns.name()));
                load.demand(0);
                await("metrics.k8s.io to report the pods idle").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2))
                        .conditionEvaluationListener(c -> node.note("idle? " + node.podCpuMillis(ns.name())))
                        .until(() -> node.podCpuMillis(ns.name()).values().stream().filter(m -> m < 4).count() == 2);
                node.note("idle metrics: " + node.podCpuMillis(ns.name()));
            }
        }
        String mounts = Files.readString(Path.of("/proc/self/mounts"));
        assertThat(mounts).doesNotContain(dir.toString());
        assertThat(Host.run(List.of("ip", "link", "show", layout.bridge()), false).exit()).isNotZero();
        assertThat(Path.of("/sys/fs/cgroup/cpu", layout.cgroupRoot())).doesNotExist();
        assertThat(ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains(dir.toString()))).isEmpty();
    }
}
