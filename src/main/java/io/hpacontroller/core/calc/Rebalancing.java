package io.hpacontroller.core.calc;

/**
 * The second look upstream takes when pods lack samples or are unready: the usage ratio recomputed with
 * the missing pods at the fallback (scale-down) or at zero (scale-up), and on a scale-up the unready pods
 * at zero.
 *
 * @param ratio    the rebalanced usage ratio
 * @param pods     the pods it was computed over
 * @param replicas {@code ceil(ratio x pods)}
 * @param held     why the current count was kept instead, null when {@code replicas} was proposed:
 *                 {@link #WITHIN_TOLERANCE}, {@link #DIRECTION_CHANGED} or {@link #AGAINST_RATIO}
 */
public record Rebalancing(double ratio, int pods, int replicas, String held) {

    /** The rebalanced ratio is inside the tolerance. */
    public static final String WITHIN_TOLERANCE = "within tolerance";
    /** Filling in the pods turned a scale-up into a scale-down or the reverse. */
    public static final String DIRECTION_CHANGED = "direction changed";
    /** The new count would move against the ratio (more pods on a ratio below 1, or fewer above). */
    public static final String AGAINST_RATIO = "count against the ratio";
}
