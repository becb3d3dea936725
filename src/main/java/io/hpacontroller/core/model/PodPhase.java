package io.hpacontroller.core.model;

/** status.phase of a pod. */
public enum PodPhase {
    PENDING, RUNNING, SUCCEEDED, FAILED, UNKNOWN;

    /** Parses the API's text ("Running"); null or unknown text is {@link #UNKNOWN}. */
    public static PodPhase parse(String phase) {
        if (phase == null) {
            return UNKNOWN;
        }
        return switch (phase) {
            case "Pending" -> PENDING;
            case "Running" -> RUNNING;
            case "Succeeded" -> SUCCEEDED;
            case "Failed" -> FAILED;
            default -> UNKNOWN;
        };
    }
}
