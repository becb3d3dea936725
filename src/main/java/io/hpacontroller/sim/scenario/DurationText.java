package io.hpacontroller.sim.scenario;

import io.hpacontroller.core.GoDuration;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as written in scenario files: Go-style text ("500ms", "15s", "5m", "1h30m", "2d") or a plain
 * number of seconds (15, 0.5).
 */
public final class DurationText {

    private static final Pattern PLAIN_SECONDS = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final Pattern DAYS_OR_WEEKS = Pattern.compile("(\\d+(?:\\.\\d+)?)([dw])");

    private DurationText() {
    }

    /** Milliseconds, or -1 when the text is not a (non-negative) duration. */
    static long parseMillis(String text) {
        String t = text.trim();
        if (t.isEmpty() || t.startsWith("-") || t.startsWith("+")) {
            return -1;
        }
        if (PLAIN_SECONDS.matcher(t).matches()) {
            // Double.parseDouble alone would also take "7d" (a Java double literal) as 7
            return Math.round(Double.parseDouble(t) * 1000);
        }
        // Go's units, plus days and weeks for long scenarios ("7d"), written as hours for Go
        Matcher m = DAYS_OR_WEEKS.matcher(t);
        StringBuilder goForm = new StringBuilder();
        while (m.find()) {
            double hours = Double.parseDouble(m.group(1)) * (m.group(2).equals("d") ? 24 : 168);
            m.appendReplacement(goForm, BigDecimal.valueOf(hours).stripTrailingZeros().toPlainString() + "h");
        }
        m.appendTail(goForm);
        try {
            return GoDuration.parse(goForm.toString()).toMillis();
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** Seconds as text for messages and reports: "26", "1.5". */
    public static String seconds(long millis) {
        if (millis % 1000 == 0) {
            return Long.toString(millis / 1000);
        }
        return java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }
}
