package io.hpacontroller.core.controls;

/**
 * How far the controller acts on an HPA (annotation {@code autoscaling.hpa-controller.io/mode}, mirror field
 * {@code spec.mode}; KEP-3148's {@code updateMode: Off}, KEP-3428).
 */
public enum Mode {
    /** Decide and write, as upstream. */
    AUTO("Auto"),
    /** Decide and write status, conditions and events, never the scale. */
    PREVIEW("Preview"),
    /** Read no metrics, write nothing but one condition. */
    SUSPENDED("Suspended");

    private final String text;

    Mode(String text) {
        this.text = text;
    }

    /** The value as written in the annotation or field. */
    public String text() {
        return text;
    }

    /** "Auto, Preview, Suspended". */
    public static String choices() {
        return "Auto, Preview, Suspended";
    }

    /** The mode written as {@code text} (exactly, as Kubernetes enums are), or null. */
    public static Mode of(String text) {
        for (Mode m : values()) {
            if (m.text.equals(text)) {
                return m;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }
}
