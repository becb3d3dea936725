package io.hpacontroller.core.normalize;

/**
 * The rate limit of the direction a scale went: the legacy {@code max(2 x current, 4)} for a scale-up
 * without behavior, or the behavior's policies combined by selectPolicy (for Max and Min, the policy
 * that set the limit), with the scale events inside that policy's period it counted.
 *
 * @param direction           {@link #UP} or {@link #DOWN}
 * @param limit               the most (up) or fewest (down) replicas allowed now
 * @param bound               whether the limit changed the count (the ScalingLimited reason is ScaleUpLimit or ScaleDownLimit)
 * @param rule                {@link #LEGACY} or {@link #POLICY}
 * @param selectPolicy        Max, Min or Disabled; null for the legacy rule
 * @param policyType          Pods or Percent of the policy that set the limit; null for the legacy rule and Disabled
 * @param policyValue         its value
 * @param periodSeconds       its period
 * @param periodStartReplicas the replica count at the start of the period: current minus added plus removed
 * @param eventsInPeriod      the scale events inside the period
 * @param addedInPeriod       replicas those events added
 * @param removedInPeriod     replicas those events removed
 */
public record RateLimit(String direction, int limit, boolean bound, String rule, String selectPolicy, String policyType,
                        int policyValue, int periodSeconds, long periodStartReplicas, int eventsInPeriod, long addedInPeriod,
                        long removedInPeriod) {

    public static final String UP = "up";
    public static final String DOWN = "down";

    /** Without behavior: at most {@code max(2 x current, 4)} in one step up. */
    public static final String LEGACY = "max(2x, 4)";
    /** With behavior: the direction's policies. */
    public static final String POLICY = "policy";

    RateLimit bound(boolean b) {
        return b == bound ? this : new RateLimit(direction, limit, b, rule, selectPolicy, policyType, policyValue, periodSeconds,
                periodStartReplicas, eventsInPeriod, addedInPeriod, removedInPeriod);
    }
}
