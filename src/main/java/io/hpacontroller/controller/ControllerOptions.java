package io.hpacontroller.controller;

import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.reconcile.ControllerConfig;

import io.hpacontroller.history.HistoryObjects;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.metrics.RestMetrics;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How the live controller runs.
 *
 * @param decisions   the flags the decisions depend on
 * @param syncPeriod  {@code --horizontal-pod-autoscaler-sync-period}: how often every HPA is reconciled
 * @param workers     {@code --concurrent-horizontal-pod-autoscaler-syncs}
 * @param namespaces  namespaces to watch; empty means all
 * @param apiTimeout  timeout of one API request
 * @param apis        {@code --hpa-apis}: the APIs whose HPAs are reconciled (their scale, status and events written)
 * @param shadow      {@code --shadow}: autoscaling/v2 HPAs are computed read-only beside the built-in controller
 *                    (then autoscaling/v2 cannot also be in {@code apis})
 * @param persistHistory {@code --persist-history}: each reconciled HPA's history is kept in the cluster, one
 *                    HorizontalPodAutoscalerHistory object per HPA ({@link HistoryObjects}), and restored by the next leader
 * @param metricsLimits {@code --metrics-max-response-bytes} and {@code --metrics-max-items}: how much of one metrics answer is read
 * @param syncCadence {@code --sync-cadence}: the cadence of the HPAs whose cadence control says none
 * @param freshSpread {@code --fresh-sync-spread}: the window the fresh syncs after one sample are spread over, {@code [0, syncPeriod)}
 */
public record ControllerOptions(ControllerConfig decisions, Duration syncPeriod, int workers, List<String> namespaces, Duration apiTimeout,
                                Set<HpaApi> apis, boolean shadow, boolean persistHistory, RestMetrics.Limits metricsLimits,
                                SyncCadence syncCadence, Duration freshSpread) {

    /** {@code --fresh-sync-spread}'s default. */
    public static final Duration FRESH_SPREAD = Duration.ofSeconds(2);

    public ControllerOptions {
        Objects.requireNonNull(decisions);
        Objects.requireNonNull(metricsLimits);
        Objects.requireNonNull(syncCadence);
        if (freshSpread.isNegative() || freshSpread.compareTo(syncPeriod) >= 0) {
            throw new IllegalArgumentException("--fresh-sync-spread must be at least 0 and shorter than the sync period ("
                    + GoDuration.format(syncPeriod) + "), got " + GoDuration.format(freshSpread));
        }
        namespaces = List.copyOf(namespaces);
        apis = apis.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(apis));
        if (syncPeriod.isZero() || syncPeriod.isNegative()) {
            throw new IllegalArgumentException("the sync period must be positive, got " + syncPeriod);
        }
        if (workers < 1) {
            throw new IllegalArgumentException("at least one worker is needed, got " + workers);
        }
        if (shadow && apis.contains(HpaApi.BUILTIN)) {
            throw new IllegalArgumentException("--shadow computes " + HpaApi.BUILTIN.apiVersion() + " HPAs read-only beside the built-in "
                    + "controller: --hpa-apis cannot also reconcile them");
        }
        if (!shadow && apis.isEmpty()) {
            throw new IllegalArgumentException("nothing to do: --hpa-apis names no API and --shadow is off");
        }
    }

    /** The spread cadence by default, its fresh syncs spread over {@link #FRESH_SPREAD} (or less, under a shorter period). */
    public ControllerOptions(ControllerConfig decisions, Duration syncPeriod, int workers, List<String> namespaces, Duration apiTimeout,
                             Set<HpaApi> apis, boolean shadow, boolean persistHistory, RestMetrics.Limits metricsLimits) {
        this(decisions, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, persistHistory, metricsLimits, SyncCadence.SPREAD,
                FRESH_SPREAD.compareTo(syncPeriod) < 0 ? FRESH_SPREAD : Duration.ZERO);
    }

    /** With the default limits of a metrics answer. */
    public ControllerOptions(ControllerConfig decisions, Duration syncPeriod, int workers, List<String> namespaces, Duration apiTimeout,
                             Set<HpaApi> apis, boolean shadow, boolean persistHistory) {
        this(decisions, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, persistHistory, RestMetrics.Limits.DEFAULT);
    }

    /** Without persistence of the histories. */
    public ControllerOptions(ControllerConfig decisions, Duration syncPeriod, int workers, List<String> namespaces, Duration apiTimeout,
                             Set<HpaApi> apis, boolean shadow) {
        this(decisions, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, false);
    }

    /** Reconciles autoscaling/v2 HPAs, as the built-in controller would (full replacement). */
    public ControllerOptions(ControllerConfig decisions, Duration syncPeriod, int workers, List<String> namespaces, Duration apiTimeout) {
        this(decisions, syncPeriod, workers, namespaces, apiTimeout, Set.of(HpaApi.BUILTIN), false);
    }

    public static ControllerOptions defaults() {
        return new ControllerOptions(ControllerConfig.defaults(), Duration.ofSeconds(15), 5, List.of(), Duration.ofSeconds(10));
    }

    public ControllerOptions withSyncPeriod(Duration d) {
        return new ControllerOptions(decisions, d, workers, namespaces, apiTimeout, apis, shadow, persistHistory, metricsLimits, syncCadence,
                freshSpread.compareTo(d) < 0 ? freshSpread : Duration.ZERO); // a window as long as the period spreads nothing: none
    }

    public ControllerOptions withWorkers(int n) {
        return new ControllerOptions(decisions, syncPeriod, n, namespaces, apiTimeout, apis, shadow, persistHistory, metricsLimits, syncCadence, freshSpread);
    }

    public ControllerOptions withNamespaces(List<String> ns) {
        return new ControllerOptions(decisions, syncPeriod, workers, ns, apiTimeout, apis, shadow, persistHistory, metricsLimits, syncCadence, freshSpread);
    }

    public ControllerOptions withDecisions(ControllerConfig c) {
        return new ControllerOptions(c, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, persistHistory, metricsLimits, syncCadence, freshSpread);
    }

    /** Which APIs' HPAs are reconciled, and whether autoscaling/v2 ones are shadowed. */
    public ControllerOptions withApis(Set<HpaApi> reconciled, boolean shadowBuiltin) {
        return new ControllerOptions(decisions, syncPeriod, workers, namespaces, apiTimeout, reconciled, shadowBuiltin, persistHistory, metricsLimits, syncCadence, freshSpread);
    }

    /** Whether each HPA's history is kept in the cluster for the next leader. */
    public ControllerOptions withPersistHistory(boolean persist) {
        return new ControllerOptions(decisions, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, persist, metricsLimits, syncCadence, freshSpread);
    }

    /** How much of one metrics answer is read. */
    public ControllerOptions withMetricsLimits(RestMetrics.Limits limits) {
        return new ControllerOptions(decisions, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, persistHistory, limits, syncCadence, freshSpread);
    }

    /** The default cadence ({@code --sync-cadence}) and the fresh cadence's window ({@code --fresh-sync-spread}). */
    public ControllerOptions withCadence(SyncCadence cadence, Duration spread) {
        return new ControllerOptions(decisions, syncPeriod, workers, namespaces, apiTimeout, apis, shadow, persistHistory, metricsLimits, cadence, spread);
    }
}
