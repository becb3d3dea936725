package io.hpacontroller.core.normalize;

/**
 * The replica count to write and why: the AbleToScale reason and message from stabilization, and the
 * ScalingLimited condition from the limits.
 *
 * @param replicas            the replica count to write
 * @param stabilized          the recommendation after stabilization, before the rate limits and min/max
 * @param ableToScaleReason   ReadyForNewScale, ScaleUpStabilized or ScaleDownStabilized
 * @param ableToScaleMessage  human-readable message for AbleToScale
 * @param limited             whether the limits changed the stabilized recommendation
 * @param limitReason         DesiredWithinRange, TooFewReplicas, TooManyReplicas, ScaleUpLimit or ScaleDownLimit
 * @param limitMessage        human-readable message for ScalingLimited
 */
public record Normalization(int replicas, int stabilized, String ableToScaleReason, String ableToScaleMessage,
                            boolean limited, String limitReason, String limitMessage) {
}
