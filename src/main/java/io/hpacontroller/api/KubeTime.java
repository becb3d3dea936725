package io.hpacontroller.api;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/** Times as the API writes them (RFC 3339, "2026-11-21T05:45:00Z"), in epoch milliseconds. */
public final class KubeTime {

    private static final long DAY_MILLIS = 86_400_000L;

    private KubeTime() {
    }

    /** The time, or {@code absent} when the text is empty or not a time. */
    public static long parse(String rfc3339, long absent) {
        if (rfc3339 == null || rfc3339.isEmpty()) {
            return absent;
        }
        long utc = utc(rfc3339);
        if (utc != Long.MIN_VALUE) {
            return utc;
        }
        try {
            return Instant.parse(rfc3339).toEpochMilli();
        } catch (RuntimeException e) {
            return absent;
        }
    }

    /**
     * The common form, {@code yyyy-MM-ddTHH:mm:ss[.fraction]Z} with each field in its everyday range, read without
     * a formatter (every pod's metrics carry one; {@link Instant#parse} took a tenth of a sync's CPU); anything
     * else, {@link Long#MIN_VALUE}, for {@link Instant#parse} to decide.
     */
    private static long utc(String s) {
        int n = s.length();
        if (n < 20 || s.charAt(n - 1) != 'Z' || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
                || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return Long.MIN_VALUE;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return Long.MIN_VALUE;
        }
        int millis = 0;
        if (n > 20) {
            int fraction = n - 21; // between '.' and 'Z'
            if (s.charAt(19) != '.' || fraction < 1 || fraction > 9 || digits(s, 20, fraction) < 0) {
                return Long.MIN_VALUE;
            }
            millis = digits(s, 20, Math.min(3, fraction));
            for (int i = fraction; i < 3; i++) {
                millis *= 10;
            }
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return Long.MIN_VALUE;
        }
        return epochDay * DAY_MILLIS + ((hour * 60L + minute) * 60 + second) * 1000 + millis;
    }

    /** The non-negative number of {@code count} digits at {@code from}, or -1. */
    private static int digits(String s, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
