package io.hpacontroller.shard;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.StableHash;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The places in the schedule a member hands over with the HPAs it releases, published in its Lease (annotation
 * {@value #ANNOTATION}) in the same update as the view that drops them: when it released them (epoch ms, after the
 * drain: it syncs none of them after that) and, per HPA, when its next sync was due on its schedule (epoch ms: a period
 * or more after its last sync there, or the due it was handed over with and did not sync yet). An HPA it released
 * without an entry was never synced there (nothing to wait for), unless the list is {@code capped}: then the gaining
 * member waits a period after the release time.
 *
 * <p>Its text is {@code 1;<released at>;<capped: 0|1>;<hash>:<offset>,...}: the low 32 bits of the key's
 * {@link StableHash} in hex and the due's offset from the release time in ms (keys whose hashes collide keep the
 * later due), at most {@value #MAX_ENTRIES} entries (about 160 KB, under the 256 KiB that a Lease's annotations may
 * hold). Our own parser, not a library's: the text is read from a Lease anyone with access may write, so it is read
 * with bounds, and one it cannot read is {@link #GARBLED}.
 *
 * @param releasedAt epoch ms, after the drain
 * @param capped     whether entries were left out (more than {@value #MAX_ENTRIES})
 * @param dues       epoch ms by key hash
 */
record Handover(long releasedAt, boolean capped, Map<Integer, Long> dues) {

    static final String ANNOTATION = "hpa-controller.io/shard-handover";
    static final int MAX_ENTRIES = 10_000;
    /** The farthest an entry's due may be from its release time: more is not ours, and unreadable. */
    static final long MAX_OFFSET_MILLIS = Duration.ofHours(1).toMillis();
    private static final int MAX_TEXT = MAX_ENTRIES * 24 + 64;
    /** An annotation it cannot read: every HPA gained from that member waits a period after the Lease's renew time. */
    static final Handover GARBLED = new Handover(Long.MIN_VALUE, true, Map.of());

    Handover {
        dues = Collections.unmodifiableMap(dues);
    }

    static int hash(HpaKey key) {
        return (int) key.stableHash();
    }

    /** The due handed over for the key, Long.MIN_VALUE when none. */
    long dueOf(HpaKey key) {
        Long due = dues.get(hash(key));
        return due == null ? Long.MIN_VALUE : due;
    }

    /** The latest due it names, or its release time when later. */
    long latest() {
        long latest = releasedAt;
        for (long due : dues.values()) {
            latest = Math.max(latest, due);
        }
        return latest;
    }

    String text() {
        StringBuilder text = new StringBuilder(24 + dues.size() * 16).append("1;").append(releasedAt).append(';')
                .append(capped ? '1' : '0').append(';');
        String sep = "";
        for (Map.Entry<Integer, Long> e : dues.entrySet()) {
            text.append(sep).append(Integer.toHexString(e.getKey())).append(':').append(e.getValue() - releasedAt);
            sep = ",";
        }
        return text.toString();
    }

    /** The handover a Lease's annotation names: null without one, {@link #GARBLED} when it cannot be read. */
    static Handover parse(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        String[] parts = text.length() > MAX_TEXT ? new String[0] : text.split(";", -1);
        if (parts.length != 4 || !parts[0].equals("1") || !(parts[2].equals("0") || parts[2].equals("1"))) {
            return GARBLED;
        }
        try {
            long releasedAt = Long.parseLong(parts[1]);
            if (releasedAt < 0 || releasedAt > 1L << 50) {
                return GARBLED;
            }
            Map<Integer, Long> dues = new HashMap<>();
            if (!parts[3].isEmpty()) {
                for (String entry : parts[3].split(",", MAX_ENTRIES + 1)) {
                    int colon = entry.indexOf(':');
                    long offset = Long.parseLong(entry.substring(colon + 1));
                    if (colon < 1 || colon > 8 || offset < -MAX_OFFSET_MILLIS || offset > MAX_OFFSET_MILLIS || dues.size() == MAX_ENTRIES) {
                        return GARBLED;
                    }
                    dues.merge(Integer.parseUnsignedInt(entry.substring(0, colon), 16), releasedAt + offset, Math::max);
                }
            }
            return new Handover(releasedAt, parts[2].equals("1"), dues);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return GARBLED;
        }
    }
}
