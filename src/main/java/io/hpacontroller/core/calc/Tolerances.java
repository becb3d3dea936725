package io.hpacontroller.core.calc;

/**
 * The band around a usage ratio of 1.0 inside which no scaling happens: {@code [1 - scaleDown, 1 + scaleUp]},
 * bounds included. Per direction since KEP-4951 ({@code behavior.scaleUp/scaleDown.tolerance}).
 *
 * @param scaleDown       tolerance below the target
 * @param scaleUp         tolerance above the target
 * @param scaleDownSource where the scale-down tolerance came from
 * @param scaleUpSource   where the scale-up tolerance came from
 */
public record Tolerances(double scaleDown, double scaleUp, Source scaleDownSource, Source scaleUpSource) {

    /** Where a tolerance came from: the controller flag, or the HPA's {@code behavior}. */
    public enum Source {
        /** {@code --horizontal-pod-autoscaler-tolerance}. */
        FLAG("flag"),
        /** {@code behavior.scaleUp.tolerance} or {@code behavior.scaleDown.tolerance}. */
        BEHAVIOR("behavior");

        private final String text;

        Source(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** Both tolerances from the flag. */
    public Tolerances(double scaleDown, double scaleUp) {
        this(scaleDown, scaleUp, Source.FLAG, Source.FLAG);
    }

    /** The same tolerance in both directions (the controller flag). */
    public static Tolerances of(double tolerance) {
        return new Tolerances(tolerance, tolerance);
    }

    /** Whether the usage ratio is close enough to 1.0 that the replica count should not change. */
    public boolean isWithin(double usageRatio) {
        return (1.0 - scaleDown) <= usageRatio && usageRatio <= (1.0 + scaleUp);
    }

    /** The verdict on one usage ratio: inside or outside, which direction, and the tolerance that decided. */
    ToleranceVerdict verdict(double usageRatio) {
        boolean up = usageRatio >= 1.0;
        return new ToleranceVerdict(usageRatio, isWithin(usageRatio),
                usageRatio > 1.0 ? ToleranceVerdict.UP : usageRatio < 1.0 ? ToleranceVerdict.DOWN : ToleranceVerdict.NONE,
                up ? scaleUp : scaleDown, up ? scaleUpSource : scaleDownSource);
    }

    @Override
    public String toString() {
        return String.format("[down:%.1f%%, up:%.1f%%]", scaleDown * 100, scaleUp * 100);
    }
}
