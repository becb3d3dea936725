package io.hpacontroller.core.normalize;

import io.hpacontroller.core.normalize.HpaHistory.ScaleEvent;
import io.hpacontroller.core.normalize.HpaHistory.ScaleEventSlot;

import java.util.ArrayList;
import java.util.List;

/**
 * How a scale change is remembered in an {@link HpaHistory} (upstream {@code storeScaleEvent} with
 * {@code markScaleEventsOutdated}): only HPAs with a behavior remember them; an event older than the direction's
 * longest policy period is marked outdated and the last outdated slot is reused; events older than any window the
 * API accepts are pruned.
 */
public final class ScaleEvents {

    private ScaleEvents() {
    }

    /** Remembers the scale from {@code previousReplicas} to {@code newReplicas} in {@code history}. */
    public static void record(HpaHistory history, Behavior behavior, int previousReplicas, int newReplicas, long now) {
        if (behavior == null || previousReplicas == newReplicas) {
            return;
        }
        boolean up = newReplicas > previousReplicas;
        synchronized (history) {
            history.setScaleEventSlots(up, after(history.scaleEventSlots(up), behavior, up, previousReplicas, newReplicas, now));
        }
    }

    /**
     * {@code history} as it will be once the scale from {@code previousReplicas} to {@code newReplicas} is recorded
     * ({@link #record}), in a copy: the history itself does not change. What is kept in the cluster before the
     * scale is written, so that a scale is never written before its event is kept.
     */
    public static HpaHistory planned(HpaHistory history, Behavior behavior, int previousReplicas, int newReplicas, long now) {
        HpaHistory planned = history.copy();
        record(planned, behavior, previousReplicas, newReplicas, now);
        return planned;
    }

    /** The slots of one direction once the change is recorded in them. */
    private static List<ScaleEventSlot> after(List<ScaleEventSlot> slots, Behavior behavior, boolean up, int previousReplicas,
                                              int newReplicas, long now) {
        ScalingRules rules = up ? behavior.scaleUp() : behavior.scaleDown();
        long period = rules.longestPolicyPeriodSeconds() * 1000L;
        long horizon = now - Math.max(HpaHistory.MAX_WINDOW_MILLIS, period);
        long cutoff = now - period;
        List<ScaleEventSlot> out = new ArrayList<>(slots.size() + 1);
        int oldIndex = -1;
        for (ScaleEventSlot s : slots) {
            if (s.event().timestamp() < horizon) {
                continue;
            }
            boolean outdated = s.outdated() || s.event().timestamp() <= cutoff;
            out.add(outdated == s.outdated() ? s : new ScaleEventSlot(s.event(), true));
            if (outdated) {
                oldIndex = out.size() - 1;
            }
        }
        // in long: a scale that reported a negative count must not wrap the difference
        int change = (int) Math.min(Integer.MAX_VALUE, Math.abs((long) newReplicas - previousReplicas));
        ScaleEventSlot recorded = new ScaleEventSlot(new ScaleEvent(change, now), false);
        if (oldIndex >= 0) {
            out.set(oldIndex, recorded);
        } else {
            out.add(recorded);
        }
        return out;
    }
}
