package io.hpacontroller.core.controls;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.schedule.Schedules;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The per-HPA controls upstream lacks, parsed once from either source: the annotations under
 * {@value ControlAnnotations#PREFIX} of an ordinary autoscaling/v2 HPA ({@link ControlAnnotations}), or the
 * fields of the mirror API. The core takes this model with the HPA; nothing else reads the annotations or
 * the fields. An HPA without any has {@link #NONE}: exactly upstream's behavior.
 *
 * @param syncPeriod              this HPA's sync period (1 s to 1 h), null for the flag's
 * @param fallback                what a long-failing metric proposes, null for none (a failed metric blocks, as upstream)
 * @param mode                    Auto, Preview or Suspended
 * @param cpuInitializationPeriod this HPA's {@code --horizontal-pod-autoscaler-cpu-initialization-period}, null for the flag's
 * @param initialReadinessDelay   this HPA's {@code --horizontal-pod-autoscaler-initial-readiness-delay}, null for the flag's
 * @param schedules               scheduled minReplicas rules (issue 18), null for none
 * @param predict                 the forecast setting (issue 18), null for none
 * @param cadence                 when within the period this HPA is synced (issue 40), null for the flag's
 */
public record HpaControls(Duration syncPeriod, Fallback fallback, Mode mode, Duration cpuInitializationPeriod,
                          Duration initialReadinessDelay, Schedules schedules, PredictSetting predict, SyncCadence cadence) {

    /** No control: upstream's behavior. */
    public static final HpaControls NONE = new HpaControls(null, null, Mode.AUTO, null, null, null, null, null);

    public static final DurationRange SYNC_PERIOD = new DurationRange(Duration.ofSeconds(1), Duration.ofHours(1));
    public static final DurationRange FALLBACK_AFTER = new DurationRange(Duration.ofSeconds(1), Duration.ofHours(24));
    /** Both warm-up durations: 0 (no warm-up) to 1 h. */
    public static final DurationRange WARM_UP = new DurationRange(Duration.ZERO, Duration.ofHours(1));
    public static final int MIN_FALLBACK_REPLICAS = 1;

    public HpaControls {
        Objects.requireNonNull(mode, "mode");
        check(SYNC_PERIOD, syncPeriod, "sync period");
        check(WARM_UP, cpuInitializationPeriod, "cpu initialization period");
        check(WARM_UP, initialReadinessDelay, "initial readiness delay");
    }

    private static void check(DurationRange range, Duration d, String what) {
        if (d != null && !range.contains(d)) {
            throw new IllegalArgumentException(what + " must be " + range.asText() + ", got " + d);
        }
    }

    /**
     * The controls of an HPA as the core receives it: from its annotations, or from the mirror API's fields for an
     * HPA of that API (the driver hands it over with the mirror's apiVersion and the fields kept). Invalid: a
     * message naming every annotation or field at fault and what it accepts.
     */
    public static Parsed<HpaControls> of(HorizontalPodAutoscaler hpa) {
        Map<String, String> annotations = hpa == null || hpa.getMetadata() == null ? null : hpa.getMetadata().getAnnotations();
        if (MirrorControlFields.isMirror(hpa)) {
            return MirrorControlFields.parse(hpa.getSpec(), annotations);
        }
        return ControlAnnotations.parse(annotations);
    }

    /** Whether no control differs from upstream's behavior. */
    public boolean isNone() {
        return equals(NONE);
    }

    /** This HPA's sync period, or the flag's. */
    public Duration syncPeriodOr(Duration flag) {
        return syncPeriod == null ? flag : syncPeriod;
    }

    /** Whether either warm-up duration is this HPA's own. */
    public boolean ownWarmUp() {
        return cpuInitializationPeriod != null || initialReadinessDelay != null;
    }

    public HpaControls withSyncPeriod(Duration d) {
        return new HpaControls(d, fallback, mode, cpuInitializationPeriod, initialReadinessDelay, schedules, predict, cadence);
    }

    public HpaControls withFallback(Fallback f) {
        return new HpaControls(syncPeriod, f, mode, cpuInitializationPeriod, initialReadinessDelay, schedules, predict, cadence);
    }

    public HpaControls withMode(Mode m) {
        return new HpaControls(syncPeriod, fallback, m, cpuInitializationPeriod, initialReadinessDelay, schedules, predict, cadence);
    }

    public HpaControls withWarmUp(Duration cpuInitialization, Duration initialReadiness) {
        return new HpaControls(syncPeriod, fallback, mode, cpuInitialization, initialReadiness, schedules, predict, cadence);
    }

    public HpaControls withSchedules(Schedules s) {
        return new HpaControls(syncPeriod, fallback, mode, cpuInitializationPeriod, initialReadinessDelay, s, predict, cadence);
    }

    public HpaControls withCadence(SyncCadence c) {
        return new HpaControls(syncPeriod, fallback, mode, cpuInitializationPeriod, initialReadinessDelay, schedules, predict, c);
    }

    /** This HPA's cadence, or the flag's. */
    public SyncCadence cadenceOr(SyncCadence flag) {
        return cadence == null ? flag : cadence;
    }

    public HpaControls withPredict(PredictSetting p) {
        return new HpaControls(syncPeriod, fallback, mode, cpuInitializationPeriod, initialReadinessDelay, schedules, p, cadence);
    }
}
