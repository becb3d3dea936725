package io.hpacontroller.core.normalize;

/**
 * Turns a proposal into the replica count to write (upstream {@code normalizeDesiredReplicas} and
 * {@code normalizeDesiredReplicasWithBehaviors}): stabilization over the remembered recommendations,
 * then the rate limits, then [minReplicas, maxReplicas].
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
     * Without {@code behavior}: hold scale-downs for the downscale stabilization window, never more than
     * double (at least 4) in one step, then clamp to [min, max].
     */
    public static Normalization legacy(HpaHistory history, long now, long downscaleStabilizationMillis,
                                       int currentReplicas, int proposed, int minReplicas, int maxReplicas) {
        int stabilized = history.stabilizeDownscale(proposed, now, downscaleStabilizationMillis);
        String ableReason = stabilized != proposed ? "ScaleDownStabilized" : "ReadyForNewScale";
        String ableMessage = stabilized != proposed ? SCALE_DOWN_STABILIZED : READY_FOR_NEW_SCALE;

        int scaleUpLimit = (int) Math.min(Integer.MAX_VALUE, Math.max(2L * currentReplicas, 4L));
        int maximumAllowed;
        String reason;
        String message;
        if (maxReplicas > scaleUpLimit) {
            maximumAllowed = scaleUpLimit;
            reason = "ScaleUpLimit";
            message = UP_LIMIT;
        } else {
            maximumAllowed = maxReplicas;
            reason = "TooManyReplicas";
            message = TOO_MANY;
        }
        int desired;
        if (stabilized < minReplicas) {
            desired = minReplicas;
            reason = "TooFewReplicas";
            message = TOO_FEW;
        } else if (stabilized > maximumAllowed) {
            desired = maximumAllowed;
        } else {
            desired = stabilized;
            reason = "DesiredWithinRange";
            message = WITHIN_RANGE;
        }
        return new Normalization(desired, stabilized, ableReason, ableMessage, desired != stabilized, reason, message);
    }

    /**
     * With {@code behavior}: stabilize within each direction's window, then limit the change by the
     * direction's policies over the remembered scale events, then clamp to [min, max].
     */
    public static Normalization withBehavior(HpaHistory history, long now, Behavior behavior,
                                             int currentReplicas, int proposed, int minReplicas, int maxReplicas) {
        int stabilized = history.stabilizeWithinWindows(proposed, currentReplicas, now,
                behavior.scaleUp().stabilizationWindowSeconds() * 1000L, behavior.scaleDown().stabilizationWindowSeconds() * 1000L);
        String ableReason;
        String ableMessage;
        if (stabilized != proposed) {
            boolean up = proposed >= currentReplicas;
            ableReason = up ? "ScaleUpStabilized" : "ScaleDownStabilized";
            ableMessage = up ? SCALE_UP_STABILIZED : SCALE_DOWN_STABILIZED;
        } else {
            ableReason = "ReadyForNewScale";
            ableMessage = READY_FOR_NEW_SCALE;
        }

        int desired = stabilized;
        String reason = "DesiredWithinRange";
        String message = WITHIN_RANGE;
        if (stabilized > currentReplicas) {
            int scaleUpLimit = Math.max(currentReplicas, scaleUpLimit(history, now, currentReplicas, behavior.scaleUp()));
            int maximumAllowed;
            if (maxReplicas > scaleUpLimit) {
                maximumAllowed = scaleUpLimit;
                reason = "ScaleUpLimit";
                message = UP_LIMIT;
            } else {
                maximumAllowed = maxReplicas;
                reason = "TooManyReplicas";
                message = TOO_MANY;
            }
            if (stabilized > maximumAllowed) {
                desired = maximumAllowed;
            } else {
                reason = "DesiredWithinRange";
                message = WITHIN_RANGE;
            }
        } else if (stabilized < currentReplicas) {
            int scaleDownLimit = Math.min(currentReplicas, scaleDownLimit(history, now, currentReplicas, behavior.scaleDown()));
            int minimumAllowed;
            if (minReplicas < scaleDownLimit) {
                minimumAllowed = scaleDownLimit;
                reason = "ScaleDownLimit";
                message = DOWN_LIMIT;
            } else {
                minimumAllowed = minReplicas;
                reason = "TooFewReplicas";
                message = TOO_FEW;
            }
            if (stabilized < minimumAllowed) {
                desired = minimumAllowed;
            } else {
                reason = "DesiredWithinRange";
                message = WITHIN_RANGE;
            }
        }
        return new Normalization(desired, stabilized, ableReason, ableMessage, desired != stabilized, reason, message);
    }

    /** The most replicas the scale-up policies allow now (upstream {@code calculateScaleUpLimitWithScalingRules}). */
    static int scaleUpLimit(HpaHistory history, long now, int currentReplicas, ScalingRules rules) {
        return policyLimit(history, now, currentReplicas, rules, true);
    }

    /** The fewest replicas the scale-down policies allow now (upstream {@code calculateScaleDownLimitWithBehaviors}). */
    static int scaleDownLimit(HpaHistory history, long now, int currentReplicas, ScalingRules rules) {
        return policyLimit(history, now, currentReplicas, rules, false);
    }

    /**
     * The limit the policies of one direction set: each policy allows a change from the replica count
     * at the start of its period (Pods: that many pods; Percent: that share, rounded up when growing and
     * truncated when shrinking, as upstream); Max picks the largest change, Min the smallest, Disabled none.
     */
    private static int policyLimit(HpaHistory history, long now, int currentReplicas, ScalingRules rules, boolean up) {
        if (rules.selectPolicy() == SelectPolicy.DISABLED) {
            return currentReplicas;
        }
        // the largest change is the highest limit upwards and the lowest downwards
        boolean highest = (rules.selectPolicy() == SelectPolicy.MAX) == up;
        long result = highest ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        long proposed = 0; // an unknown policy type repeats the previous proposal, as upstream's loop does
        for (ScalingPolicy policy : rules.policies()) {
            long periodStart = periodStartReplicas(history, now, currentReplicas, policy.periodSeconds());
            if (policy.type() == ScalingPolicy.Type.PODS) {
                proposed = up ? periodStart + policy.value() : periodStart - policy.value();
            } else if (policy.type() == ScalingPolicy.Type.PERCENT) {
                proposed = up
                        ? (long) Math.ceil(periodStart * (1 + policy.value() / 100.0)) // rounded up, or a small workload could never grow
                        : (long) (periodStart * (1 - policy.value() / 100.0));
            }
            result = highest ? Math.max(result, proposed) : Math.min(result, proposed);
        }
        return clampToInt(result);
    }

    /** The replica count at the start of the policy's period: current minus what was added, plus what was removed. */
    private static long periodStartReplicas(HpaHistory history, long now, int currentReplicas, int periodSeconds) {
        return currentReplicas - history.changeInPeriod(true, periodSeconds, now) + history.changeInPeriod(false, periodSeconds, now);
    }

    private static int clampToInt(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }
}
