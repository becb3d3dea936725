package io.hpacontroller.sim;

/**
 * An event the core recorded about an HPA.
 *
 * @param timeMillis simulation time
 * @param hpa        the HPA's name
 * @param type       Normal or Warning
 * @param reason     the event's reason (SuccessfulRescale, FailedGetResourceMetric, ...)
 * @param message    the event's message
 */
public record RecordedEvent(long timeMillis, String hpa, String type, String reason, String message) {
}
