package io.hpacontroller.testing.kube;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What metrics.k8s.io reports for the pods of a namespace when real kubelets run them: samples over a
 * window, as metrics-server computes them from the kubelets (io.hpacontroller.testing.node).
 */
public interface ResourceMetrics {

    /** One pod's sample: the usage of each of its containers over {@code window} ending at {@code timestamp}. */
    record PodSample(String name, Map<String, String> labels, Instant timestamp, Duration window, Map<String, Usage> containers) {
    }

    /** A container's CPU and memory, as quantities ({@code 12m}, {@code 3456Ki}). */
    record Usage(String cpu, String memory) {
    }

    /** The pods of the namespace that have a complete sample. */
    List<PodSample> samples(String namespace);
}
