package io.hpacontroller.core;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations in Go's {@code time.ParseDuration} form, as kube-controller-manager flags and the
 * metrics APIs write them: "15s", "5m", "1m30s", "1h", "250ms", "1.5s", "0".
 */
public final class GoDuration {

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)");
    /** A number of days or weeks, not followed by a letter (so "2days" stays invalid). */
    private static final Pattern DAYS_OR_WEEKS = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)([dw])(?![a-zA-Zµμ])");
    private static final Pattern PLAIN_SECONDS = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

    private GoDuration() {
    }

    /**
     * Parses a Go duration.
     *
     * @throws IllegalArgumentException with a message naming the text when it is not a duration
     */
    public static Duration parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("invalid duration: null");
        }
        String s = text.trim();
        boolean negative = false;
        if (s.startsWith("-") || s.startsWith("+")) {
            negative = s.startsWith("-");
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("invalid duration \"" + text + "\"");
        }
        Matcher m = PART.matcher(s);
        int pos = 0;
        BigDecimal nanos = BigDecimal.ZERO;
        while (pos < s.length()) {
            if (!m.find(pos) || m.start() != pos) {
                throw new IllegalArgumentException("invalid duration \"" + text + "\" (use a number and a unit: ns, us, ms, s, m, h; e.g. 15s, 5m, 1m30s)");
            }
            BigDecimal value = new BigDecimal(m.group(1).startsWith(".") ? "0" + m.group(1) : m.group(1));
            nanos = nanos.add(value.multiply(BigDecimal.valueOf(unitNanos(m.group(2)))));
            pos = m.end();
        }
        if (nanos.compareTo(MAX_NANOS) > 0) {
            // Go's limit too (about 292 years); longValue() would wrap around silently
            throw new IllegalArgumentException("invalid duration \"" + text + "\" (too long)");
        }
        Duration d = Duration.ofNanos(nanos.longValue());
        return negative ? d.negated() : d;
    }

    /**
     * Parses a Go duration that may also use days ({@code d}, 24 hours) and weeks ({@code w}, 7 days), for
     * settings that span days: "7d", "1d12h", "2w". Days here are always 24 hours (not calendar days).
     *
     * @throws IllegalArgumentException with a message naming the text when it is not a duration
     */
    public static Duration parseWithDays(String text) {
        if (text == null) {
            throw new IllegalArgumentException("invalid duration: null");
        }
        Matcher m = DAYS_OR_WEEKS.matcher(text);
        StringBuilder goForm = new StringBuilder();
        while (m.find()) {
            BigDecimal hours = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(m.group(2).equals("d") ? 24 : 168));
            m.appendReplacement(goForm, hours.stripTrailingZeros().toPlainString() + "h");
        }
        m.appendTail(goForm);
        try {
            return parse(goForm.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid duration \"" + text
                    + "\" (use a number and a unit: s, m, h, d, w; e.g. 30s, 5m, 24h, 7d)");
        }
    }

    /**
     * A duration as scenario files and load traces write it: Go's form with days and weeks ("500ms", "15s",
     * "1h30m", "7d") or a plain number of seconds ("15", "0.5"); never negative.
     *
     * @return milliseconds, or -1 when the text is not such a duration
     */
    public static long parseMillisOrSeconds(String text) {
        String t = text.trim();
        if (t.isEmpty() || t.startsWith("-") || t.startsWith("+")) {
            return -1;
        }
        if (PLAIN_SECONDS.matcher(t).matches()) {
            // Double.parseDouble alone would also take "7d" or "2f" (Java double literals) as 7 or 2
            return Math.round(Double.parseDouble(t) * 1000);
        }
        try {
            return parseWithDays(t).toMillis();
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** Milliseconds as seconds for messages and reports: "26", "1.5". */
    public static String seconds(long millis) {
        if (millis % 1000 == 0) {
            return Long.toString(millis / 1000);
        }
        return BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us", "µs", "μs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> throw new IllegalArgumentException("unknown unit " + unit);
        };
    }

    /** Whole seconds without the zero parts Go writes: "1h" (not "1h0m0s"), "24h", "1m30s", "0s". */
    public static String compact(Duration d) {
        long s = d.getSeconds();
        if (s == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder(s < 0 ? "-" : "");
        s = Math.abs(s);
        if (s >= 3600) {
            sb.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            sb.append(s % 3600 / 60).append('m');
        }
        if (s % 60 > 0) {
            sb.append(s % 60).append('s');
        }
        return sb.toString();
    }

    /** Formats like Go's {@code Duration.String()} for whole seconds and above ("1m30s", "15s", "0s"). */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        if (d.isNegative()) {
            sb.append('-');
            d = d.negated();
        }
        long h = d.toHours();
        long m = d.toMinutesPart();
        long s = d.toSecondsPart();
        long ms = d.toMillisPart();
        if (h > 0) {
            sb.append(h).append('h');
        }
        if (h > 0 || m > 0) {
            sb.append(m).append('m');
        }
        if (ms > 0) {
            sb.append(s).append('.').append(String.format("%03d", ms).replaceAll("0+$", "")).append('s');
        } else {
            sb.append(s).append('s');
        }
        return sb.toString();
    }
}
