package io.hpacontroller.core.normalize;

import java.util.List;

/**
 * The replica count to write and how the normalizer got there from the recommendation: the stabilization
 * window that held it, the rate limit of the direction it went, the [minReplicas, maxReplicas] clamp, and
 * the conditions' reasons and messages.
 *
 * @param recommendation      the count the metrics recommended (upstream's prenormalizedDesiredReplicas)
 * @param stabilized          the recommendation after stabilization, before the rate limits and min/max
 * @param replicas            the replica count to write
 * @param stabilization       the window that changed the count; null when stabilization changed nothing
 * @param rateLimit           the rate limit of the direction the stabilized count went; null when it did
 *                            not move, or moved down without behavior (the legacy rules have no scale-down limit)
 * @param constraintsApplied  what changed the count on the way, in order: {@link #STABILIZATION_WINDOW},
 *                            {@link #SCALE_UP_LIMIT} or {@link #SCALE_DOWN_LIMIT}, {@link #MAX_REPLICAS} or
 *                            {@link #MIN_REPLICAS} (upstream's name in kubernetes/kubernetes#138992)
 * @param wokeFromZero        whether a target at 0 went to minReplicas because minReplicas is above 0
 * @param ableToScaleReason   ReadyForNewScale, ScaleUpStabilized or ScaleDownStabilized
 * @param ableToScaleMessage  human-readable message for AbleToScale
 * @param limited             whether the limits changed the stabilized recommendation (ScalingLimited)
 * @param limitReason         DesiredWithinRange, TooFewReplicas, TooManyReplicas, ScaleUpLimit or ScaleDownLimit
 * @param limitMessage        human-readable message for ScalingLimited
 */
public record Normalization(int recommendation, int stabilized, int replicas, Stabilization stabilization, RateLimit rateLimit,
                            List<String> constraintsApplied, boolean wokeFromZero, String ableToScaleReason, String ableToScaleMessage,
                            boolean limited, String limitReason, String limitMessage) {

    public static final String STABILIZATION_WINDOW = "StabilizationWindow";
    public static final String SCALE_UP_LIMIT = "ScaleUpLimit";
    public static final String SCALE_DOWN_LIMIT = "ScaleDownLimit";
    public static final String MAX_REPLICAS = "MaxReplicas";
    public static final String MIN_REPLICAS = "MinReplicas";
}
