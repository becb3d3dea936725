package io.hpacontroller.core.controls;

/**
 * When within each period an HPA is synced (annotation {@code autoscaling.hpa-controller.io/cadence}, mirror field
 * {@code spec.cadence}, flag {@code --sync-cadence} for the default; issue 40).
 */
public enum SyncCadence {
    /** Just after its metrics pipeline's next sample becomes readable, as learned ({@code io.hpacontroller.core.cadence}). */
    FRESH("Fresh"),
    /** At a fixed phase of its own, a hash of its key: the syncs of many HPAs spread evenly over the period. */
    SPREAD("Spread");

    private final String text;

    SyncCadence(String text) {
        this.text = text;
    }

    /** The value as written in the annotation or field. */
    public String text() {
        return text;
    }

    /** "Fresh, Spread". */
    public static String choices() {
        return "Fresh, Spread";
    }

    /** The cadence written as {@code text} (exactly, as Kubernetes enums are), or null. */
    public static SyncCadence of(String text) {
        for (SyncCadence c : values()) {
            if (c.text.equals(text)) {
                return c;
            }
        }
        return null;
    }

    /** The cadence named as the {@code --sync-cadence} flag takes it ("fresh", "spread": lower case, as flag values are), or null. */
    public static SyncCadence ofFlag(String flag) {
        for (SyncCadence c : values()) {
            if (c.text.toLowerCase(java.util.Locale.ROOT).equals(flag)) {
                return c;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }
}
