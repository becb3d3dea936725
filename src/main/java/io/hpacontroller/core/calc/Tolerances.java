package io.hpacontroller.core.calc;

/**
 * The band around a usage ratio of 1.0 inside which no scaling happens: {@code [1 - scaleDown, 1 + scaleUp]},
 * bounds included. Per direction since KEP-4951 ({@code behavior.scaleUp/scaleDown.tolerance}).
 *
 * @param scaleDown tolerance below the target
 * @param scaleUp   tolerance above the target
 */
public record Tolerances(double scaleDown, double scaleUp) {

    /** The same tolerance in both directions (the controller flag). */
    public static Tolerances of(double tolerance) {
        return new Tolerances(tolerance, tolerance);
    }

    /** Whether the usage ratio is close enough to 1.0 that the replica count should not change. */
    public boolean isWithin(double usageRatio) {
        return (1.0 - scaleDown) <= usageRatio && usageRatio <= (1.0 + scaleUp);
    }

    @Override
    public String toString() {
        return String.format("[down:%.1f%%, up:%.1f%%]", scaleDown * 100, scaleUp * 100);
    }
}
