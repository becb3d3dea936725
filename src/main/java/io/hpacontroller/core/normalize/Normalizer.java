package io.hpacontroller.core.normalize;

import io.hpacontroller.core.normalize.HpaHistory.Recommendation;
import io.hpacontroller.core.normalize.HpaHistory.ScaleEvent;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns the metrics' recommendation into the replica count to write (upstream {@code normalizeDesiredReplicas}
 * and {@code normalizeDesiredReplicasWithBehaviors}): stabilization over the remembered recommendations, then
 * the rate limits, then [minReplicas, maxReplicas]. {@link #normalizeDesiredReplicas} is the one entry point;
 * it picks the legacy rules or the behavior's.
 */
public final class Normalizer {

    static final String READY_FOR_NEW_SCALE = "recommended size matches current size";
    static final String SCALE_DOWN_STABILIZED = "recent recommendations were higher than current one, applying the highest recent recommendation";
    static final String SCALE_UP_STABILIZED = "recent recommendations were lower than current one, applying the lowest recent recommendation";
    static final String WITHIN_RANGE = "the desired count is within the acceptable range";
    static final String TOO_FEW = "the desired replica count is less than the minimum replica count";
    static final String TOO_MANY = "the desired replica count is more than the maximum replica count";
    static final String UP_LIMIT = "the desired replica count is increasing faster than the maximum scale rate";
    static final String DOWN_LIMIT = "the desired replica count is decreasing faster than the maximum scale rate";

    private Normalizer() {
    }

    /**
     * The count to write for a recommendation: with {@code behavior}, its stabilization windows and policies;
     * without, the legacy rules (the downscale stabilization window and {@code max(2 x current, 4)}). A
     * target at 0 replicas (syncs reach the normalizer there only after the HPA scaled it to zero itself)
     * goes at least to minReplicas: raising minReplicas wakes it.
     *
     * @param behavior                     the defaulted behavior, null when the HPA has none
     * @param downscaleStabilizationMillis {@code --horizontal-pod-autoscaler-downscale-stabilization} (legacy rules only)
     */
    public static Normalization normalizeDesiredReplicas(HpaHistory history, long now, Behavior behavior, long downscaleStabilizationMillis,
                                                         int currentReplicas, int recommendation, int minReplicas, int maxReplicas) {
        return behavior == null
                ? legacy(history, now, downscaleStabilizationMillis, currentReplicas, recommendation, minReplicas, maxReplicas)
                : withBehavior(history, now, behavior, currentReplicas, recommendation, minReplicas, maxReplicas);
    }

    /**
     * Without {@code behavior}: hold scale-downs for the downscale stabilization window, never more than
     * double (at least 4) in one step, then clamp to [min, max].
     */
    static Normalization legacy(HpaHistory history, long now, long downscaleStabilizationMillis,
                                int currentReplicas, int proposed, int minReplicas, int maxReplicas) {
        Stabilized s = stabilizeRecommendation(history, proposed, now, downscaleStabilizationMillis);
        int stabilized = s.replicas();
        Stabilization stabilization = s.by() == null ? null
                : stabilization(Stabilization.SCALE_DOWN, downscaleStabilizationMillis / 1000, s.by(), now);
        String ableReason = stabilized != proposed ? "ScaleDownStabilized" : "ReadyForNewScale";
        String ableMessage = stabilized != proposed ? SCALE_DOWN_STABILIZED : READY_FOR_NEW_SCALE;

        int scaleUpLimit = (int) Math.min(Integer.MAX_VALUE, Math.max(2L * currentReplicas, 4L));
        Bound bound = stabilized < minReplicas ? new Bound(minReplicas, "TooFewReplicas", TOO_FEW) : Bound.up(scaleUpLimit, maxReplicas);
        int desired = stabilized < minReplicas || stabilized > bound.replicas() ? bound.replicas() : stabilized;
        Bound limit = desired == stabilized && stabilized >= minReplicas ? Bound.WITHIN_RANGE : bound;
        RateLimit rateLimit = stabilized > currentReplicas
                ? new RateLimit(RateLimit.UP, scaleUpLimit, desired != stabilized && limit.byRate(), RateLimit.LEGACY,
                        null, null, 0, 0, currentReplicas, 0, 0, 0)
                : null;
        return finish(proposed, stabilized, desired, currentReplicas, minReplicas, stabilization, rateLimit, ableReason, ableMessage,
                limit.reason(), limit.message());
    }

    /**
     * With {@code behavior} (upstream {@code normalizeDesiredReplicasWithBehaviors}): stabilize within each direction's
     * window, then limit the change by the direction's policies over the remembered scale events, then clamp to [min, max].
     */
    static Normalization withBehavior(HpaHistory history, long now, Behavior behavior,
                                      int currentReplicas, int proposed, int minReplicas, int maxReplicas) {
        Window w = stabilizeWithBehaviors(history, now, behavior, currentReplicas, proposed);
        int stabilized = w.replicas();
        if (stabilized == currentReplicas) {
            return finish(proposed, stabilized, stabilized, currentReplicas, minReplicas, w.stabilization(), null, w.ableReason(),
                    w.ableMessage(), Bound.WITHIN_RANGE.reason(), Bound.WITHIN_RANGE.message());
        }
        boolean up = stabilized > currentReplicas;
        RateLimit rateLimit = policyLimit(history, now, currentReplicas, up ? behavior.scaleUp() : behavior.scaleDown(), up);
        Bound bound = up ? Bound.up(rateLimit.limit(), maxReplicas) : Bound.down(rateLimit.limit(), minReplicas);
        boolean beyond = up ? stabilized > bound.replicas() : stabilized < bound.replicas();
        Bound limit = beyond ? bound : Bound.WITHIN_RANGE;
        return finish(proposed, stabilized, beyond ? bound.replicas() : stabilized, currentReplicas, minReplicas, w.stabilization(),
                beyond ? rateLimit.bound(bound.byRate()) : rateLimit, w.ableReason(), w.ableMessage(), limit.reason(), limit.message());
    }

    /**
     * A bound the count may not pass, with the ScalingLimited reason and message it gives. Upwards: the rate limit when it
     * is below maxReplicas (ScaleUpLimit), else maxReplicas (TooManyReplicas); downwards: the rate limit when it is above
     * minReplicas (ScaleDownLimit), else minReplicas (TooFewReplicas). The choice is upstream's, written once here.
     */
    private record Bound(int replicas, String reason, String message) {
        static final Bound WITHIN_RANGE = new Bound(-1, "DesiredWithinRange", Normalizer.WITHIN_RANGE);

        static Bound up(int rateLimit, int maxReplicas) {
            return maxReplicas > rateLimit ? new Bound(rateLimit, "ScaleUpLimit", UP_LIMIT) : new Bound(maxReplicas, "TooManyReplicas", TOO_MANY);
        }

        static Bound down(int rateLimit, int minReplicas) {
            return minReplicas < rateLimit ? new Bound(rateLimit, "ScaleDownLimit", DOWN_LIMIT) : new Bound(minReplicas, "TooFewReplicas", TOO_FEW);
        }

        /** Whether the rate limit set it (not a replica bound). */
        boolean byRate() {
            return reason.equals("ScaleUpLimit") || reason.equals("ScaleDownLimit");
        }
    }

    /** What the stabilization windows gave, with the AbleToScale reason and message it sets. */
    private record Window(int replicas, Stabilization stabilization, String ableReason, String ableMessage) {
    }

    /**
     * Upstream {@code stabilizeRecommendationWithBehaviors}: the recommendation brought within what each direction's window
     * remembers ({@link #stabilizeRecommendationWithBehaviors}); the new one is recorded.
     */
    private static Window stabilizeWithBehaviors(HpaHistory history, long now, Behavior behavior, int currentReplicas, int proposed) {
        int upWindow = behavior.scaleUp().stabilizationWindowSeconds();
        int downWindow = behavior.scaleDown().stabilizationWindowSeconds();
        Stabilized s = stabilizeRecommendationWithBehaviors(history, proposed, currentReplicas, now, upWindow * 1000L, downWindow * 1000L);
        if (s.replicas() == proposed) {
            return new Window(s.replicas(), null, "ReadyForNewScale", READY_FOR_NEW_SCALE);
        }
        boolean up = proposed >= currentReplicas;
        Stabilization stabilization = s.by() == null ? null : up ? stabilization(Stabilization.SCALE_UP, upWindow, s.by(), now)
                : stabilization(Stabilization.SCALE_DOWN, downWindow, s.by(), now);
        return new Window(s.replicas(), stabilization, up ? "ScaleUpStabilized" : "ScaleDownStabilized",
                up ? SCALE_UP_STABILIZED : SCALE_DOWN_STABILIZED);
    }

    /**
     * What a stabilization window gave: the stabilized count, and the remembered recommendation that set it
     * when it differs from the new one (null otherwise).
     */
    record Stabilized(int replicas, Recommendation by) {
    }

    /**
     * Legacy stabilization (upstream {@code stabilizeRecommendation}): the highest recommendation younger
     * than the window (the new one included), then the new recommendation is recorded.
     *
     * <p>An entry exactly {@code window} old is outside the window, in both stabilizations. Upstream reads
     * {@code time.Now()} for its cutoff after the entry was recorded, so its entries are always strictly
     * older than the same instant on our clock: on the first sync the initial recommendation (recorded
     * "now") is already outside a window of 0, and a recommendation made exactly one window ago is out.
     */
    static Stabilized stabilizeRecommendation(HpaHistory history, int recommendation, long now, long windowMillis) {
        synchronized (history) {
            List<Recommendation> recs = recommendationSlots(history, now, windowMillis);
            Recommendation highest = null;
            int oldIndex = -1;
            long cutoff = now - windowMillis;
            for (int i = 0; i < recs.size(); i++) {
                Recommendation r = recs.get(i);
                if (r.timestamp() <= cutoff) {
                    oldIndex = i;
                } else if (r.replicas() > recommendation && newestOfHighest(r, highest)) {
                    highest = r;
                }
            }
            recordRecommendation(history, recs, oldIndex, new Recommendation(recommendation, now));
            return new Stabilized(highest == null ? recommendation : highest.replicas(), highest);
        }
    }

    /**
     * Stabilization with behavior (upstream {@code stabilizeRecommendationWithBehaviors}): the lowest
     * recommendation inside the scale-up window and the highest inside the scale-down window (the new one
     * included in both); the current replica count is brought between them. The new recommendation is
     * recorded, in the place of one outside both windows. The recommendation that set the count is the
     * lowest of the scale-up window when the new one is above the current count, else the highest of the
     * scale-down window.
     */
    static Stabilized stabilizeRecommendationWithBehaviors(HpaHistory history, int recommendation, int currentReplicas, long now,
                                                           long upWindowMillis, long downWindowMillis) {
        synchronized (history) {
            List<Recommendation> recs = recommendationSlots(history, now, Math.max(upWindowMillis, downWindowMillis));
            long upCutoff = now - upWindowMillis;
            long downCutoff = now - downWindowMillis;
            Recommendation lowest = null;
            Recommendation highest = null;
            int oldIndex = -1;
            for (int i = 0; i < recs.size(); i++) {
                Recommendation r = recs.get(i);
                if (r.timestamp() > upCutoff && r.replicas() < recommendation && newestOfLowest(r, lowest)) {
                    lowest = r;
                }
                if (r.timestamp() > downCutoff && r.replicas() > recommendation && newestOfHighest(r, highest)) {
                    highest = r;
                }
                if (r.timestamp() <= upCutoff && r.timestamp() <= downCutoff) {
                    oldIndex = i;
                }
            }
            int up = lowest == null ? recommendation : lowest.replicas();
            int down = highest == null ? recommendation : highest.replicas();
            int stabilized = currentReplicas;
            if (stabilized < up) {
                stabilized = up;
            }
            if (stabilized > down) {
                stabilized = down;
            }
            recordRecommendation(history, recs, oldIndex, new Recommendation(recommendation, now));
            if (stabilized == recommendation) {
                return new Stabilized(stabilized, null);
            }
            return new Stabilized(stabilized, recommendation > currentReplicas ? lowest : highest);
        }
    }

    /** On the first sync (or the first after a suspension), remember the current replica count as a recommendation made now. */
    public static void recordInitialRecommendation(HpaHistory history, int currentReplicas, long now) {
        synchronized (history) {
            if (!history.seen()) {
                Recommendation first = new Recommendation(currentReplicas, now);
                history.remember(new HpaHistory.Seen(List.of(first), first));
            }
        }
    }

    /**
     * The remembered recommendations in their slots' order, those no window the API accepts can see any more
     * forgotten (a copy, for the stabilization to record the new one in).
     */
    private static List<Recommendation> recommendationSlots(HpaHistory history, long now, long windowMillis) {
        long horizon = now - Math.max(HpaHistory.MAX_WINDOW_MILLIS, windowMillis);
        List<Recommendation> recs = new ArrayList<>(history.recommendations());
        recs.removeIf(r -> r.timestamp() < horizon);
        return recs;
    }

    /**
     * Remembers a new recommendation in the slot of {@code oldIndex} (one no window sees any more), or after the
     * others when it is -1; it is the run in progress.
     */
    private static void recordRecommendation(HpaHistory history, List<Recommendation> recs, int oldIndex, Recommendation rec) {
        if (oldIndex >= 0) {
            recs.set(oldIndex, rec);
        } else {
            recs.add(rec);
        }
        history.remember(new HpaHistory.Seen(recs, rec));
    }

    private static boolean newestOfHighest(Recommendation r, Recommendation highest) {
        return highest == null || r.replicas() > highest.replicas() || (r.replicas() == highest.replicas() && r.timestamp() > highest.timestamp());
    }

    private static boolean newestOfLowest(Recommendation r, Recommendation lowest) {
        return lowest == null || r.replicas() < lowest.replicas() || (r.replicas() == lowest.replicas() && r.timestamp() > lowest.timestamp());
    }

    /**
     * The scale events within the last {@code periodSeconds}: the replicas they added and removed, and how many
     * there were (upstream {@code getReplicasChangePerPeriod}, both directions in one pass).
     */
    record InPeriod(long added, long removed, int events) {
    }

    static InPeriod inPeriod(List<ScaleEvent> scaleUps, List<ScaleEvent> scaleDowns, int periodSeconds, long now) {
        long cutoff = now - periodSeconds * 1000L;
        long added = 0;
        long removed = 0;
        int events = 0;
        for (ScaleEvent e : scaleUps) {
            if (e.timestamp() > cutoff) {
                added += e.replicaChange();
                events++;
            }
        }
        for (ScaleEvent e : scaleDowns) {
            if (e.timestamp() > cutoff) {
                removed += e.replicaChange();
                events++;
            }
        }
        return new InPeriod(added, removed, events);
    }

    /**
     * The normalization as a value: the limits' verdict, then the wake-from-zero rule (a target at 0 with
     * minReplicas above 0 goes to minReplicas; the conditions keep what the limits said, as upstream's do).
     */
    private static Normalization finish(int recommendation, int stabilized, int desired, int currentReplicas, int minReplicas,
                                        Stabilization stabilization, RateLimit rateLimit, String ableReason, String ableMessage,
                                        String limitReason, String limitMessage) {
        boolean limited = desired != stabilized;
        boolean woke = currentReplicas == 0 && minReplicas > 0 && desired < minReplicas;
        String limit = !limited ? null : switch (limitReason) {
            case "TooManyReplicas" -> Normalization.MAX_REPLICAS;
            case "TooFewReplicas" -> Normalization.MIN_REPLICAS;
            default -> limitReason; // ScaleUpLimit, ScaleDownLimit
        };
        List<String> constraints = present(stabilization == null ? null : Normalization.STABILIZATION_WINDOW, limit,
                woke && !Normalization.MIN_REPLICAS.equals(limit) ? Normalization.MIN_REPLICAS : null);
        return new Normalization(recommendation, stabilized, woke ? minReplicas : desired, stabilization, rateLimit, constraints, woke,
                ableReason, ableMessage, limited, limitReason, limitMessage);
    }

    /** The names that are not null, in order (no list is built when none is). */
    private static List<String> present(String a, String b, String c) {
        if (a == null) {
            return b == null ? (c == null ? List.of() : List.of(c)) : (c == null ? List.of(b) : List.of(b, c));
        }
        return b == null ? (c == null ? List.of(a) : List.of(a, c)) : (c == null ? List.of(a, b) : List.of(a, b, c));
    }

    private static Stabilization stabilization(String window, long windowSeconds, Recommendation kept, long now) {
        return new Stabilization(window, (int) windowSeconds, kept.replicas(), kept.timestamp(), now - kept.timestamp());
    }

    /**
     * The limit the policies of one direction set: each policy allows a change from the replica count
     * at the start of its period (Pods: that many pods; Percent: that share, rounded up when growing and
     * truncated when shrinking, as upstream); Max picks the largest change, Min the smallest, Disabled none.
     * The limit never goes past the current count the wrong way (no scale-up limit below it, as upstream).
     * Upstream {@code calculateScaleUpLimitWithScalingRules} and {@code calculateScaleDownLimitWithBehaviors}.
     */
    private static RateLimit policyLimit(HpaHistory history, long now, int currentReplicas, ScalingRules rules, boolean up) {
        String direction = up ? RateLimit.UP : RateLimit.DOWN;
        if (rules.selectPolicy() == SelectPolicy.DISABLED) {
            return new RateLimit(direction, currentReplicas, false, RateLimit.POLICY, SelectPolicy.DISABLED.text(), null, 0, 0,
                    currentReplicas, 0, 0, 0);
        }
        // the largest change is the highest limit upwards and the lowest downwards
        boolean highest = (rules.selectPolicy() == SelectPolicy.MAX) == up;
        long result = highest ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        long proposed = 0; // an unknown policy type repeats the previous proposal, as upstream's loop does
        ScalingPolicy chosen = null;
        InPeriod chosenEvents = null;
        List<ScaleEvent> scaleUps = history.scaleUpEvents();
        List<ScaleEvent> scaleDowns = history.scaleDownEvents();
        for (ScalingPolicy policy : rules.policies()) {
            // the replica count at the start of the policy's period: current minus what was added, plus what was removed
            InPeriod events = inPeriod(scaleUps, scaleDowns, policy.periodSeconds(), now);
            long periodStart = currentReplicas - events.added() + events.removed();
            if (policy.type() == ScalingPolicy.Type.PODS) {
                proposed = up ? periodStart + policy.value() : periodStart - policy.value();
            } else if (policy.type() == ScalingPolicy.Type.PERCENT) {
                proposed = up
                        ? (long) Math.ceil(periodStart * (1 + policy.value() / 100.0)) // rounded up, or a small workload could never grow
                        : (long) (periodStart * (1 - policy.value() / 100.0));
            }
            if (highest ? proposed > result : proposed < result) {
                result = proposed;
                chosen = policy;
                chosenEvents = events;
            }
        }
        int limit = clampToInt(result);
        limit = up ? Math.max(currentReplicas, limit) : Math.min(currentReplicas, limit);
        if (chosen == null) {
            return new RateLimit(direction, limit, false, RateLimit.POLICY, rules.selectPolicy().text(), null, 0, 0, currentReplicas, 0, 0, 0);
        }
        return new RateLimit(direction, limit, false, RateLimit.POLICY, rules.selectPolicy().text(), chosen.type().text(), chosen.value(),
                chosen.periodSeconds(), currentReplicas - chosenEvents.added() + chosenEvents.removed(), chosenEvents.events(),
                chosenEvents.added(), chosenEvents.removed());
    }

    private static int clampToInt(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }
}
