package io.hpacontroller.live;

import io.hpacontroller.core.reconcile.ControllerConfig;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the live controller runs.
 *
 * @param decisions   the flags the decisions depend on
 * @param syncPeriod  {@code --horizontal-pod-autoscaler-sync-period}: how often every HPA is reconciled
 * @param workers     {@code --concurrent-horizontal-pod-autoscaler-syncs}
 * @param namespaces  namespaces to watch; empty means all
 * @param apiTimeout  timeout of one API request
 */
public record ControllerOptions(ControllerConfig decisions, Duration syncPeriod, int workers, List<String> namespaces, Duration apiTimeout) {

    public ControllerOptions {
        Objects.requireNonNull(decisions);
        namespaces = List.copyOf(namespaces);
        if (syncPeriod.isZero() || syncPeriod.isNegative()) {
            throw new IllegalArgumentException("the sync period must be positive, got " + syncPeriod);
        }
        if (workers < 1) {
            throw new IllegalArgumentException("at least one worker is needed, got " + workers);
        }
    }

    public static ControllerOptions defaults() {
        return new ControllerOptions(ControllerConfig.defaults(), Duration.ofSeconds(15), 5, List.of(), Duration.ofSeconds(10));
    }

    public ControllerOptions withSyncPeriod(Duration d) {
        return new ControllerOptions(decisions, d, workers, namespaces, apiTimeout);
    }

    public ControllerOptions withWorkers(int n) {
        return new ControllerOptions(decisions, syncPeriod, n, namespaces, apiTimeout);
    }

    public ControllerOptions withNamespaces(List<String> ns) {
        return new ControllerOptions(decisions, syncPeriod, workers, ns, apiTimeout);
    }

    public ControllerOptions withDecisions(ControllerConfig c) {
        return new ControllerOptions(c, syncPeriod, workers, namespaces, apiTimeout);
    }
}
