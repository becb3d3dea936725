package io.hpacontroller.core.normalize;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What of an HPA's history its decisions can still use under the stabilization windows in force, and the
 * history cut down to that ({@link #compact}): what is kept in the cluster for the next leader.
 *
 * <p>Recommendations. The scale-down window picks the highest recommendation younger than the window, the
 * scale-up window the lowest (the legacy rules have only the scale-down window, the
 * {@code --horizontal-pod-autoscaler-downscale-stabilization} flag). Windows only slide forward, so a
 * recommendation can set a count later only while it is inside its window and no later recommendation would
 * be picked over it: for the highest, one at least as high made at the same time or later; for the lowest,
 * one at least as low. What is left per window is a monotonic deque (strictly falling counts from the oldest
 * for the highest, strictly rising for the lowest); the union of the two deques, plus the run in progress
 * (the latest recommendation), gives the same count and the same deciding recommendation (the newest of the
 * highest, the newest of the lowest) at every later sync as the whole history, as long as the windows stay
 * as they are. A window made longer later starts from what was kept, much as upstream's slot reuse starts
 * it. Each deque is cut to {@value #MAX_PER_WINDOW} entries by merging its two oldest into the older count
 * at the younger time: a kept count then lasts a little longer than in memory, so a window only ever holds
 * more, never less (never an earlier scale-down or scale-up). With 15 s syncs a deque reaches that length
 * only after 32 minutes of a count falling (or rising) at every sync inside one window.
 *
 * <p>Scale events. A policy counts the events of both directions inside its period, and a new event takes
 * the slot of the last outdated event of its direction (upstream's slot reuse), so the order of the slots
 * decides which outdated event a later one replaces while the other direction's longer periods still count
 * it. The events are kept as the history holds them, in slot order, without those older than an hour (the
 * history drops those itself at its next event). A direction holds at most one event more than can fit in its
 * longest policy period, one scale per sync: 121 for a 30-minute period at the default 15 s sync period. Beyond
 * {@value #MAX_EVENTS_PER_DIRECTION} (a sync period of a few seconds scaling at every sync), the two oldest
 * events are merged into one of their summed change at the younger time: every policy period then counts at
 * least what it counted before, so a policy only ever allows less, never more.
 *
 * <p>The bound per HPA: at most {@code 2 * MAX_PER_WINDOW + 1} recommendations, {@value #MAX_EVENTS_PER_DIRECTION}
 * scale events per direction, one failure per metric of the spec, and the learned load (at most 64 KiB).
 */
public record Retention(long scaleUpWindowMillis, long scaleDownWindowMillis) {

    /** The longest a window's deque gets before its oldest entries are merged. */
    public static final int MAX_PER_WINDOW = 128;

    /** The most scale events of one direction kept before the oldest are merged. */
    public static final int MAX_EVENTS_PER_DIRECTION = 256;

    public Retention {
        if (scaleUpWindowMillis < 0 || scaleDownWindowMillis < 0) {
            throw new IllegalArgumentException("a stabilization window cannot be negative");
        }
    }

    /**
     * The windows an HPA decides with.
     *
     * @param behavior                     the defaulted behavior, null when the HPA has none (the legacy rules)
     * @param downscaleStabilizationMillis the flag, the legacy rules' only window
     */
    public static Retention of(Behavior behavior, long downscaleStabilizationMillis) {
        if (behavior == null) {
            return new Retention(0, downscaleStabilizationMillis);
        }
        return new Retention(behavior.scaleUp().stabilizationWindowSeconds() * 1000L, behavior.scaleDown().stabilizationWindowSeconds() * 1000L);
    }

    /** The history cut down to what later syncs from {@code now} on can use (see the class comment). */
    public HistorySnapshot compact(HistorySnapshot history, long now) {
        List<HpaHistory.Recommendation> recs = history.recommendations();
        HpaHistory.Recommendation run = history.runInProgress();
        List<HpaHistory.Recommendation> kept = new ArrayList<>(deque(recs, now - scaleDownWindowMillis, true));
        for (HpaHistory.Recommendation r : deque(recs, now - scaleUpWindowMillis, false)) {
            if (!kept.contains(r)) {
                kept.add(r);
            }
        }
        kept.sort(Comparator.comparingLong(HpaHistory.Recommendation::timestamp));
        if (run != null) {
            kept.remove(run);
            kept.add(run);
        }
        long horizon = now - HpaHistory.MAX_WINDOW_MILLIS;
        return history.withRecommendations(kept).withScaleEvents(recent(history.scaleUpEvents(), horizon), recent(history.scaleDownEvents(), horizon));
    }

    /**
     * Whether a new leader restoring {@code b} decides from {@code now} on as one restoring {@code a} would: the
     * two are the same once compacted at {@code now}, but for the time of the run in progress (which a new
     * leader sets itself, see {@link HistorySnapshot#withRunUntil}).
     */
    public boolean equivalent(HistorySnapshot a, HistorySnapshot b, long now) {
        return withoutRunTime(compact(a, now)).equals(withoutRunTime(compact(b, now)));
    }

    private static HistorySnapshot withoutRunTime(HistorySnapshot s) {
        HpaHistory.Recommendation run = s.runInProgress();
        if (run == null) {
            return s;
        }
        List<HpaHistory.Recommendation> recs = new ArrayList<>(s.recommendations());
        recs.set(recs.size() - 1, new HpaHistory.Recommendation(run.replicas(), Long.MIN_VALUE));
        return s.withRecommendations(recs);
    }

    /**
     * The recommendations younger than {@code cutoff} that a later window could still pick, oldest first: for
     * the highest, those higher than every recommendation made at the same time or after; for the lowest, lower.
     * Cut to {@link #MAX_PER_WINDOW} by merging the oldest two into the older count at the younger time.
     */
    static List<HpaHistory.Recommendation> deque(List<HpaHistory.Recommendation> recs, long cutoff, boolean highest) {
        List<HpaHistory.Recommendation> inside = new ArrayList<>();
        for (HpaHistory.Recommendation r : recs) {
            if (r.timestamp() > cutoff) {
                inside.add(r);
            }
        }
        // by time, and within one instant the one a window picks last, so that it is met first from the end
        Comparator<HpaHistory.Recommendation> byCount = Comparator.comparingInt(HpaHistory.Recommendation::replicas);
        inside.sort(Comparator.comparingLong(HpaHistory.Recommendation::timestamp).thenComparing(highest ? byCount : byCount.reversed()));
        List<HpaHistory.Recommendation> kept = new ArrayList<>();
        for (int i = inside.size() - 1; i >= 0; i--) {
            HpaHistory.Recommendation r = inside.get(i);
            HpaHistory.Recommendation later = kept.isEmpty() ? null : kept.get(kept.size() - 1);
            if (later == null || (highest ? r.replicas() > later.replicas() : r.replicas() < later.replicas())) {
                kept.add(r);
            }
        }
        java.util.Collections.reverse(kept);
        while (kept.size() > MAX_PER_WINDOW) {
            kept.set(1, new HpaHistory.Recommendation(kept.get(0).replicas(), kept.get(1).timestamp()));
            kept.remove(0);
        }
        return kept;
    }

    /** The events not older than {@code horizon}, in slot order, cut to {@link #MAX_EVENTS_PER_DIRECTION} by merging the oldest. */
    static List<HpaHistory.ScaleEvent> recent(List<HpaHistory.ScaleEvent> events, long horizon) {
        List<HpaHistory.ScaleEvent> out = new ArrayList<>(events.size());
        for (HpaHistory.ScaleEvent e : events) {
            if (e.timestamp() >= horizon) {
                out.add(e);
            }
        }
        while (out.size() > MAX_EVENTS_PER_DIRECTION) {
            int oldest = 0;
            int next = -1;
            for (int i = 1; i < out.size(); i++) {
                if (out.get(i).timestamp() < out.get(oldest).timestamp()) {
                    oldest = i;
                }
            }
            for (int i = 0; i < out.size(); i++) {
                if (i != oldest && (next < 0 || out.get(i).timestamp() < out.get(next).timestamp())) {
                    next = i;
                }
            }
            HpaHistory.ScaleEvent a = out.get(oldest);
            HpaHistory.ScaleEvent b = out.get(next);
            out.set(next, new HpaHistory.ScaleEvent(a.replicaChange() + b.replicaChange(), b.timestamp()));
            out.remove(oldest);
        }
        return out;
    }
}
