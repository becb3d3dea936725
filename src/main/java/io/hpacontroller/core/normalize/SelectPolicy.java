package io.hpacontroller.core.normalize;

/** How the policies of one direction combine: the largest change, the smallest, or none at all. */
public enum SelectPolicy {
    MAX, MIN, DISABLED;

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
