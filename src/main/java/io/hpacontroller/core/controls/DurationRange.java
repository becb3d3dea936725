package io.hpacontroller.core.controls;

import io.hpacontroller.core.GoDuration;

import java.time.Duration;

/**
 * The durations a control accepts, both ends included; it describes itself for error messages, as a duration
 * (annotations: "from 1s to 1h") or in seconds (the mirror API's {@code ...Seconds} fields: "from 1 to 3600").
 */
public record DurationRange(Duration min, Duration max) {

    public boolean contains(Duration d) {
        return d != null && d.compareTo(min) >= 0 && d.compareTo(max) <= 0;
    }

    /** "from 1s to 1h". */
    public String asText() {
        return "from " + GoDuration.compact(min) + " to " + GoDuration.compact(max);
    }

    /** "from 1 to 3600". */
    public String inSeconds() {
        return "from " + min.toSeconds() + " to " + max.toSeconds();
    }
}
