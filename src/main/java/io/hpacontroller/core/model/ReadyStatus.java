package io.hpacontroller.core.model;

/** Status of a pod's Ready condition; {@link #NONE} when the pod has no Ready condition. */
public enum ReadyStatus {
    TRUE, FALSE, UNKNOWN, NONE;

    /** Parses a condition status ("True"); null means there is no condition. */
    public static ReadyStatus parse(String status) {
        if (status == null) {
            return NONE;
        }
        return switch (status) {
            case "True" -> TRUE;
            case "False" -> FALSE;
            default -> UNKNOWN;
        };
    }
}
