package io.hpacontroller.sim;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as written in scenario files: Go-style text ("500ms", "15s", "5m", "1h30m", "2d") or a plain
 * number of seconds (15, 0.5).
 */
final class DurationText {

    private static final Pattern PLAIN_SECONDS = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d|w)");

    private DurationText() {
    }

    /** Milliseconds, or -1 when the text is not a duration. */
    static long parseMillis(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            return -1;
        }
        if (PLAIN_SECONDS.matcher(t).matches()) {
            // Double.parseDouble alone would also take "7d" (a Java double literal) as 7
            return Math.round(Double.parseDouble(t) * 1000);
        }
        Matcher m = PART.matcher(t);
        int pos = 0;
        double millis = 0;
        while (pos < t.length()) {
            if (!m.find(pos) || m.start() != pos) {
                return -1;
            }
            double v = Double.parseDouble(m.group(1));
            millis += v * switch (m.group(2)) {
                case "ms" -> 1;
                case "s" -> 1000;
                case "m" -> 60_000;
                case "h" -> 3_600_000;
                case "d" -> 86_400_000;
                default -> 604_800_000; // w
            };
            pos = m.end();
        }
        return Math.round(millis);
    }

    /** Seconds as text for messages and reports: "26", "1.5". */
    static String seconds(long millis) {
        if (millis % 1000 == 0) {
            return Long.toString(millis / 1000);
        }
        return java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }
}
