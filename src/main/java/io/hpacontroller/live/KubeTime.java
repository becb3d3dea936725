package io.hpacontroller.live;

import java.time.Instant;

/** Times as the API writes them (RFC 3339, "2026-11-21T05:45:00Z"), in epoch milliseconds. */
final class KubeTime {

    private KubeTime() {
    }

    /** The time, or {@code absent} when the text is empty or not a time. */
    static long parse(String rfc3339, long absent) {
        if (rfc3339 == null || rfc3339.isEmpty()) {
            return absent;
        }
        try {
            return Instant.parse(rfc3339).toEpochMilli();
        } catch (RuntimeException e) {
            return absent;
        }
    }
}
