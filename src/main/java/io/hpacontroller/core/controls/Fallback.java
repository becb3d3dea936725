package io.hpacontroller.core.controls;

import java.time.Duration;
import java.util.Objects;

/**
 * What a metric proposes once it has failed without a break for {@code after}: {@code replicas}, instead of
 * blocking (KEP-5679, KEDA's {@code fallback}). The proposal enters the max over the metrics like any other,
 * then min/max, stabilization and the policies apply as always.
 *
 * @param replicas the proposal of a metric in fallback (at least 1)
 * @param after    how long a metric must have failed, as the controller measured it
 */
public record Fallback(int replicas, Duration after) {

    public Fallback {
        Objects.requireNonNull(after, "after");
        if (replicas < HpaControls.MIN_FALLBACK_REPLICAS) {
            throw new IllegalArgumentException("fallback replicas must be at least " + HpaControls.MIN_FALLBACK_REPLICAS + ", got " + replicas);
        }
        if (!HpaControls.FALLBACK_AFTER.contains(after)) {
            throw new IllegalArgumentException("fallback after must be " + HpaControls.FALLBACK_AFTER.asText() + ", got " + after);
        }
    }
}
