package io.hpacontroller.core.trace;

import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.Mode;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-HPA controls a sync decided under, as plain values for the trace (JSON and back): the mode, and the
 * controls that replace a flag of the controller for this HPA. Which metric the fallback acted for, and since
 * when it failed, is in that metric's {@link MetricTrace}.
 *
 * @param mode                          Auto, Preview or Suspended
 * @param syncPeriodMillis              this HPA's own sync period, 0 when the flag's
 * @param cpuInitializationPeriodMillis this HPA's own cpu initialization period, -1 when the flag's
 * @param initialReadinessDelayMillis   this HPA's own initial readiness delay, -1 when the flag's
 * @param fallbackReplicas              the fallback's replicas, -1 without the fallback control
 * @param fallbackAfterMillis           how long a metric must fail before its fallback, 0 without the control
 */
public record ControlsTrace(String mode, long syncPeriodMillis, long cpuInitializationPeriodMillis, long initialReadinessDelayMillis,
                            int fallbackReplicas, long fallbackAfterMillis) {

    /** No control: upstream's behavior. */
    public static final ControlsTrace NONE = of(HpaControls.NONE);

    public static ControlsTrace of(HpaControls c) {
        return new ControlsTrace(c.mode().text(), c.syncPeriod() == null ? 0 : c.syncPeriod().toMillis(),
                c.cpuInitializationPeriod() == null ? -1 : c.cpuInitializationPeriod().toMillis(),
                c.initialReadinessDelay() == null ? -1 : c.initialReadinessDelay().toMillis(),
                c.fallback() == null ? -1 : c.fallback().replicas(), c.fallback() == null ? 0 : c.fallback().after().toMillis());
    }

    public boolean preview() {
        return Mode.PREVIEW.text().equals(mode);
    }

    public boolean suspended() {
        return Mode.SUSPENDED.text().equals(mode);
    }

    /** The controls that differ from upstream's behavior, in words ("mode Preview", "sync period 3s"); empty when none. */
    public List<String> named() {
        List<String> out = new ArrayList<>();
        if (mode != null && !Mode.AUTO.text().equals(mode)) {
            out.add("mode " + mode);
        }
        if (syncPeriodMillis > 0) {
            out.add("sync period " + DecisionSummary.duration(syncPeriodMillis));
        }
        if (cpuInitializationPeriodMillis >= 0) {
            out.add("cpu initialization period " + DecisionSummary.duration(cpuInitializationPeriodMillis));
        }
        if (initialReadinessDelayMillis >= 0) {
            out.add("initial readiness delay " + DecisionSummary.duration(initialReadinessDelayMillis));
        }
        if (fallbackReplicas >= 0) {
            out.add("fallback " + fallbackReplicas + " replicas after " + DecisionSummary.duration(fallbackAfterMillis));
        }
        return out;
    }
}
