package io.hpacontroller.core.schedule;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Month;
import java.util.Locale;
import java.util.Map;

/**
 * A standard five-field cron expression, {@code minute hour day-of-month month day-of-week}, in wall-clock
 * (local) time; the time zone and the daylight-saving rules are {@link ZonedCron}'s.
 *
 * <p>Each field is {@code *}, a value, a range {@code a-b}, any of these with a step ({@code *}{@code /15},
 * {@code 1-30/5}; {@code 5/15} means {@code 5-max/15}), or a comma-separated list of them. Months and days of
 * the week also take their English three-letter names, in any case ({@code JAN}-{@code DEC},
 * {@code SUN}-{@code SAT}); day of week 0 and 7 are both Sunday. As in cron, when both day-of-month and
 * day-of-week are restricted (neither starts with {@code *}), a day matches if <em>either</em> does
 * ({@code 0 9 1 * MON}: the 1st of the month and every Monday); otherwise both must.
 *
 * <p>Refused with a message naming the field: a wrong number of fields (a seconds or a year field),
 * descriptors ({@code @daily}, {@code @every 1h}), a time zone prefix ({@code CRON_TZ=}), the non-standard
 * {@code ? L W #}, values out of range, ranges that go backwards, a step of 0, and an expression that can
 * never match (day 30 of February).
 */
public final class CronExpression {

    private static final String FIELDS = "minute hour day-of-month month day-of-week";
    private static final Map<String, String> DESCRIPTORS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final String[] MONTH_NAMES = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    private static final String[] DAY_NAMES = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

    private enum Field {
        MINUTE("minute", 0, 59, null),
        HOUR("hour", 0, 23, null),
        DAY_OF_MONTH("day-of-month", 1, 31, null),
        MONTH("month", 1, 12, MONTH_NAMES),
        DAY_OF_WEEK("day-of-week", 0, 7, DAY_NAMES);

        final String label;
        final int min;
        final int max;
        final String[] names;

        Field(String label, int min, int max, String[] names) {
            this.label = label;
            this.min = min;
            this.max = max;
            this.names = names;
        }
    }

    private final String text;
    private final long minutes;
    private final long hours;
    private final long daysOfMonth;
    private final long months;
    private final long daysOfWeek;
    private final boolean dayOfMonthRestricted;
    private final boolean dayOfWeekRestricted;
    private final boolean hourWildcard;

    private CronExpression(String text, long[] masks, boolean dayOfMonthRestricted, boolean dayOfWeekRestricted,
                           boolean hourWildcard) {
        this.text = text;
        this.minutes = masks[0];
        this.hours = masks[1];
        this.daysOfMonth = masks[2];
        this.months = masks[3];
        this.daysOfWeek = masks[4];
        this.dayOfMonthRestricted = dayOfMonthRestricted;
        this.dayOfWeekRestricted = dayOfWeekRestricted;
        this.hourWildcard = hourWildcard;
    }

    /**
     * Parses a five-field cron expression.
     *
     * @throws IllegalArgumentException with a message that quotes the expression and names the field at fault
     */
    public static CronExpression parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("cron is empty: write 5 fields, " + FIELDS);
        }
        String trimmed = text.trim();
        String quoted = "cron \"" + trimmed + "\": ";
        if (trimmed.startsWith("@")) {
            String descriptor = trimmed.split("\\s+")[0].toLowerCase(Locale.ROOT);
            String equivalent = DESCRIPTORS.get(descriptor);
            throw new IllegalArgumentException(quoted + "descriptors such as @daily and @every are not supported; write 5 fields, "
                    + FIELDS + (equivalent == null ? "" : " (" + descriptor + " is \"" + equivalent + "\")"));
        }
        if (trimmed.startsWith("TZ=") || trimmed.startsWith("CRON_TZ=")) {
            throw new IllegalArgumentException(quoted + "a time zone inside the cron is not supported; use the timezone field");
        }
        String[] parts = trimmed.split("\\s+");
        if (parts.length != 5) {
            String hint = parts.length == 6 ? " (a seconds or year field is not supported)"
                    : parts.length == 7 ? " (seconds and year fields are not supported)" : "";
            throw new IllegalArgumentException(quoted + "has " + parts.length + " field" + (parts.length == 1 ? "" : "s")
                    + ", want 5: " + FIELDS + hint);
        }
        Field[] fields = Field.values();
        long[] masks = new long[5];
        for (int i = 0; i < 5; i++) {
            masks[i] = parseField(parts[i], fields[i], quoted);
        }
        // day of week 7 is Sunday, as 0
        if ((masks[4] & (1L << 7)) != 0) {
            masks[4] = (masks[4] & ~(1L << 7)) | 1L;
        }
        boolean domRestricted = !parts[2].startsWith("*");
        boolean dowRestricted = !parts[4].startsWith("*");
        CronExpression cron = new CronExpression(trimmed, masks, domRestricted, dowRestricted, parts[1].startsWith("*"));
        cron.checkCanMatch(quoted);
        return cron;
    }

    private static long parseField(String field, Field f, String quoted) {
        String where = quoted + f.label + " \"" + field + "\": ";
        long mask = 0;
        for (String element : field.split(",", -1)) {
            mask |= parseElement(element, f, where);
        }
        return mask;
    }

    private static long parseElement(String element, Field f, String where) {
        if (element.isEmpty()) {
            throw new IllegalArgumentException(where + "empty list element");
        }
        if (element.contains("?")) {
            throw new IllegalArgumentException(where + "'?' is not standard cron; use *");
        }
        int slash = element.indexOf('/');
        String range = slash >= 0 ? element.substring(0, slash) : element;
        int step = slash >= 0 ? step(element.substring(slash + 1), where) : 1;
        int[] fromTo = range(range, slash >= 0, f, where);
        long mask = 0;
        for (int v = fromTo[0]; v <= fromTo[1]; v += step) {
            mask |= 1L << v;
        }
        return mask;
    }

    /** The step after the slash of "a-b/step". */
    private static int step(String stepText, String where) {
        if (!stepText.matches("\\d{1,4}")) {
            throw new IllegalArgumentException(where + "step \"" + stepText + "\" is not a number");
        }
        int step = Integer.parseInt(stepText);
        if (step == 0) {
            throw new IllegalArgumentException(where + "a step must be at least 1");
        }
        return step;
    }

    /** The range before the slash as {from, to}: "*", "a-b", or "a" (which is "a-max" when a step follows). */
    private static int[] range(String range, boolean stepped, Field f, String where) {
        int last = f == Field.DAY_OF_WEEK ? 6 : f.max;
        if (range.equals("*")) {
            return new int[] {f.min, last};
        }
        int dash = range.indexOf('-');
        if (dash < 0) {
            int from = value(range, f, where);
            // "5/15" is "5-max/15"
            return new int[] {from, stepped ? last : from};
        }
        int from = value(range.substring(0, dash), f, where);
        int to = value(range.substring(dash + 1), f, where);
        if (to < from) {
            throw new IllegalArgumentException(where + "range " + range + " goes backwards"
                    + " (write a list instead, e.g. " + (f == Field.DAY_OF_WEEK ? "SAT,SUN" : "22,23,0,1") + ")");
        }
        return new int[] {from, to};
    }

    private static int value(String text, Field f, String where) {
        if (text.matches("\\d{1,4}")) {
            int v = Integer.parseInt(text);
            if (v < f.min || v > f.max) {
                throw new IllegalArgumentException(where + v + " is out of range " + f.min + "-" + f.max);
            }
            return v;
        }
        if (f.names != null) {
            String upper = text.toUpperCase(Locale.ROOT);
            for (int i = 0; i < f.names.length; i++) {
                if (f.names[i].equals(upper)) {
                    return f == Field.MONTH ? i + 1 : i;
                }
            }
        }
        if (text.contains("#") || text.matches("\\d*[LW]+\\d*")) {
            throw new IllegalArgumentException(where + "L, W and # are not supported");
        }
        String accepted = f.names == null ? "a number " + f.min + "-" + f.max
                : "a number " + f.min + "-" + f.max + " or a name " + f.names[0] + "-" + f.names[f.names.length - 1];
        throw new IllegalArgumentException(where + "\"" + text + "\" is not " + accepted);
    }

    /** Refuses an expression that no date matches (e.g. "0 0 30 2 *": February has no day 30). */
    private void checkCanMatch(String quoted) {
        if (!dayOfMonthRestricted || dayOfWeekRestricted) {
            return;  // every month has days matching "*", and with both restricted either one suffices
        }
        for (int month = 1; month <= 12; month++) {
            if ((months & (1L << month)) != 0) {
                int longest = Month.of(month).maxLength();
                if (Long.numberOfTrailingZeros(daysOfMonth) <= longest) {
                    return;
                }
            }
        }
        throw new IllegalArgumentException(quoted + "never matches: no month in the month field has a day in the day-of-month field");
    }

    /** Whether the hour field starts with {@code *} (the rule follows the clock hour by hour: see {@link ZonedCron}). */
    boolean hourWildcard() {
        return hourWildcard;
    }

    /** Whether a wall-clock minute matches (seconds are ignored). */
    public boolean matches(LocalDateTime t) {
        return (minutes & (1L << t.getMinute())) != 0 && (hours & (1L << t.getHour())) != 0 && dayMatches(t.toLocalDate());
    }

    private boolean dayMatches(LocalDate date) {
        if ((months & (1L << date.getMonthValue())) == 0) {
            return false;
        }
        boolean dom = (daysOfMonth & (1L << date.getDayOfMonth())) != 0;
        boolean dow = (daysOfWeek & (1L << (date.getDayOfWeek().getValue() % 7))) != 0;
        return dayOfMonthRestricted && dayOfWeekRestricted ? dom || dow : dom && dow;
    }

    /**
     * The latest matching wall-clock minute at or before {@code bound}, looking back no further than the
     * start of {@code earliest}; null when there is none. Cost: one step per day looked at (a month that
     * does not match is skipped whole), each a few bit operations.
     */
    LocalDateTime latestAtOrBefore(LocalDateTime bound, LocalDate earliest) {
        LocalDate date = bound.toLocalDate();
        int maxMinuteOfDay = bound.getHour() * 60 + bound.getMinute();
        while (!date.isBefore(earliest)) {
            if ((months & (1L << date.getMonthValue())) == 0) {
                date = date.withDayOfMonth(1).minusDays(1);
            } else {
                if (dayMatches(date)) {
                    int found = latestMinuteOfDay(maxMinuteOfDay);
                    if (found >= 0) {
                        return date.atTime(found / 60, found % 60);
                    }
                }
                date = date.minusDays(1);
            }
            maxMinuteOfDay = 23 * 60 + 59;
        }
        return null;
    }

    /** The latest matching minute of a day at or before {@code maxMinuteOfDay}, or -1. */
    private int latestMinuteOfDay(int maxMinuteOfDay) {
        int hour = maxMinuteOfDay / 60;
        if ((hours & (1L << hour)) != 0) {
            int minute = highestBitAtOrBelow(minutes, maxMinuteOfDay % 60);
            if (minute >= 0) {
                return hour * 60 + minute;
            }
        }
        int earlierHour = highestBitAtOrBelow(hours, hour - 1);
        return earlierHour < 0 ? -1 : earlierHour * 60 + highestBitAtOrBelow(minutes, 59);
    }

    private static int highestBitAtOrBelow(long mask, int bit) {
        if (bit < 0) {
            return -1;
        }
        long below = mask & ((2L << bit) - 1);
        return below == 0 ? -1 : 63 - Long.numberOfLeadingZeros(below);
    }

    /** The expression as written (trimmed). */
    @Override
    public String toString() {
        return text;
    }

    /** Equal when written the same (so a changed annotation reads as a changed rule). */
    @Override
    public boolean equals(Object o) {
        return o instanceof CronExpression c && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
