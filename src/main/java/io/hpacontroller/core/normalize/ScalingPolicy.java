package io.hpacontroller.core.normalize;

/**
 * One rate policy of a scaling direction: at most {@code value} pods, or {@code value} percent, per
 * {@code periodSeconds}.
 */
public record ScalingPolicy(Type type, int value, int periodSeconds) {

    /** Pods or Percent; {@link #UNKNOWN} for anything else the API might carry. */
    public enum Type {
        PODS("Pods"), PERCENT("Percent"), UNKNOWN("Unknown");

        private final String text;

        Type(String text) {
            this.text = text;
        }

        /** The name as the API writes it. */
        public String text() {
            return text;
        }

        public static Type parse(String text) {
            if ("Pods".equals(text)) {
                return PODS;
            }
            if ("Percent".equals(text)) {
                return PERCENT;
            }
            return UNKNOWN;
        }
    }
}
