package io.hpacontroller.core.calc;

/**
 * The tolerance check that decided a proposal: the usage ratio it looked at (the rebalanced one when
 * pods were filled in), whether it was inside the band, which way it pointed, and the tolerance of
 * that direction with where it came from.
 *
 * @param ratio     the usage ratio checked
 * @param within    inside {@code [1 - scaleDown, 1 + scaleUp]}: no change from this metric
 * @param direction {@link #UP}, {@link #DOWN} or {@link #NONE} (a ratio of exactly 1)
 * @param tolerance the tolerance of that direction (the scale-up one for a ratio of 1)
 * @param source    flag or behavior
 */
public record ToleranceVerdict(double ratio, boolean within, String direction, double tolerance, Tolerances.Source source) {

    public static final String UP = "up";
    public static final String DOWN = "down";
    public static final String NONE = "none";
}
