package io.hpacontroller.core.normalize;

/** How the policies of one direction combine: the largest change, the smallest, or none at all. */
public enum SelectPolicy {
    MAX("Max"), MIN("Min"), DISABLED("Disabled");

    private final String text;

    SelectPolicy(String text) {
        this.text = text;
    }

    /** The name as the API writes it. */
    public String text() {
        return text;
    }

    /** "Min" and "Disabled" as written; anything else behaves as Max, as upstream treats it. */
    public static SelectPolicy parse(String text) {
        if ("Min".equals(text)) {
            return MIN;
        }
        if ("Disabled".equals(text)) {
            return DISABLED;
        }
        return MAX;
    }
}
