package io.hpacontroller.testing.node;

import io.hpacontroller.testing.kube.ChildProcess;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Upstream's HPA controller on the real node: a kube-controller-manager of its own with only
 * {@code horizontalpodautoscaling} (the workload controllers stay in the control plane's), so a test can
 * turn it on and off without touching them. It acts on every {@code autoscaling/v2} HPA of the cluster,
 * never on mirror HPAs; its requests are the user {@link #USER}'s in the audit log.
 */
public final class UpstreamHpaController {

    public static final String USER = "upstream-hpa-controller";

    private final RealNode node;
    private ChildProcess process;

    UpstreamHpaController(RealNode node) {
        this.node = node;
    }

    /** Starts it (if it is not running) with upstream's defaults: a 15 s sync period. */
    public synchronized void on() {
        if (process != null && process.isAlive()) {
            return;
        }
        Path kubeconfig = node.plane().kubeconfigForCertificate(USER, "system:masters");
        process = ChildProcess.start("upstream-hpa-controller", List.of(node.plane().program("kube-controller-manager").toString(),
                "--kubeconfig=" + kubeconfig, "--controllers=horizontalpodautoscaling", "--leader-elect=false", "--secure-port=0"),
                node.directory().resolve("logs/upstream-hpa-controller.log"), Map.of());
        node.note("upstream's HPA controller on");
    }

    public synchronized void off() {
        if (process != null) {
            process.stop(Duration.ofSeconds(10));
            process = null;
            node.note("upstream's HPA controller off");
        }
    }

    public synchronized boolean isOn() {
        return process != null && process.isAlive();
    }
}
