package io.hpacontroller.core.model;

/**
 * One pod's metric sample.
 *
 * @param value     milli-value
 * @param timestamp epoch milliseconds at which the sample was taken
 * @param window    milliseconds over which it was averaged
 */
public record PodMetric(long value, long timestamp, long window) {
}
