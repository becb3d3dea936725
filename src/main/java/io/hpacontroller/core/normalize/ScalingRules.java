package io.hpacontroller.core.normalize;

import java.util.List;

/**
 * The defaulted rules of one scaling direction.
 *
 * @param stabilizationWindowSeconds window over which recommendations are stabilized
 * @param selectPolicy               how policies combine
 * @param policies                   the rate policies
 * @param tolerance                  per-direction tolerance (KEP-4951), null when not set
 */
public record ScalingRules(int stabilizationWindowSeconds, SelectPolicy selectPolicy, List<ScalingPolicy> policies, Double tolerance) {

    public ScalingRules {
        policies = List.copyOf(policies);
    }

    /** The longest policy period, which bounds how long scale events are remembered. */
    public int longestPolicyPeriodSeconds() {
        int longest = 0;
        for (ScalingPolicy p : policies) {
            longest = Math.max(longest, p.periodSeconds());
        }
        return longest;
    }
}
