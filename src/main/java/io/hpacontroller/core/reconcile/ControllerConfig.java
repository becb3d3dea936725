package io.hpacontroller.core.reconcile;

import java.time.Duration;
import java.util.Objects;

/**
 * The kube-controller-manager flags the decisions depend on.
 *
 * @param tolerance                     {@code --horizontal-pod-autoscaler-tolerance} (0.1)
 * @param cpuInitializationPeriod       {@code --horizontal-pod-autoscaler-cpu-initialization-period} (5m)
 * @param initialReadinessDelay         {@code --horizontal-pod-autoscaler-initial-readiness-delay} (30s)
 * @param downscaleStabilization        {@code --horizontal-pod-autoscaler-downscale-stabilization} (5m)
 * @param scaleToZeroEnabled            the {@code HPAScaleToZero} feature gate (on, as in v1.37)
 */
public record ControllerConfig(double tolerance, Duration cpuInitializationPeriod, Duration initialReadinessDelay,
                               Duration downscaleStabilization, boolean scaleToZeroEnabled) {

    public ControllerConfig {
        Objects.requireNonNull(cpuInitializationPeriod);
        Objects.requireNonNull(initialReadinessDelay);
        Objects.requireNonNull(downscaleStabilization);
        if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
            throw new IllegalArgumentException("tolerance must be a non-negative number, got " + tolerance);
        }
        if (cpuInitializationPeriod.isNegative() || initialReadinessDelay.isNegative() || downscaleStabilization.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
    }

    /** The upstream defaults. */
    public static ControllerConfig defaults() {
        return new ControllerConfig(0.1, Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofMinutes(5), true);
    }

    public ControllerConfig withTolerance(double t) {
        return new ControllerConfig(t, cpuInitializationPeriod, initialReadinessDelay, downscaleStabilization, scaleToZeroEnabled);
    }

    public ControllerConfig withCpuInitializationPeriod(Duration d) {
        return new ControllerConfig(tolerance, d, initialReadinessDelay, downscaleStabilization, scaleToZeroEnabled);
    }

    public ControllerConfig withInitialReadinessDelay(Duration d) {
        return new ControllerConfig(tolerance, cpuInitializationPeriod, d, downscaleStabilization, scaleToZeroEnabled);
    }

    public ControllerConfig withDownscaleStabilization(Duration d) {
        return new ControllerConfig(tolerance, cpuInitializationPeriod, initialReadinessDelay, d, scaleToZeroEnabled);
    }

    public ControllerConfig withScaleToZero(boolean enabled) {
        return new ControllerConfig(tolerance, cpuInitializationPeriod, initialReadinessDelay, downscaleStabilization, enabled);
    }
}
