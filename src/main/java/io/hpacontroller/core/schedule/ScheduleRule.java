package io.hpacontroller.core.schedule;

import io.hpacontroller.core.GoDuration;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;

/**
 * One scheduled rule: from each start of {@code cron} in {@code timezone}, for {@code duration}, the HPA's
 * effective minimum is at least {@code minReplicas}.
 *
 * @param cron        when the rule starts (wall clock of {@code timezone})
 * @param duration    how long each start lasts, {@value #MIN_DURATION_TEXT} to {@value #MAX_DURATION_TEXT}
 * @param timezone    an IANA time zone
 * @param minReplicas the minimum while active, at least 1
 */
public record ScheduleRule(CronExpression cron, Duration duration, ZoneId timezone, int minReplicas) {

    static final String MIN_DURATION_TEXT = "1m";
    static final String MAX_DURATION_TEXT = "744h";
    /** Cron's resolution: a shorter rule could fall between two syncs. */
    public static final Duration MIN_DURATION = Duration.ofMinutes(1);
    /**
     * 31 days: a monthly rule can last its whole month. It also bounds the cost of asking whether a rule
     * is active: the search looks back at most this far, one step per day.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(31);

    /**
     * @throws IllegalArgumentException when a value is out of range (the message names the field and the range)
     */
    public ScheduleRule {
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(timezone, "timezone");
        if (duration == null || duration.compareTo(MIN_DURATION) < 0 || duration.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("duration must be between " + MIN_DURATION_TEXT + " and " + MAX_DURATION_TEXT
                    + " (31 days), got " + (duration == null ? "nothing" : GoDuration.format(duration)));
        }
        if (minReplicas < 1) {
            throw new IllegalArgumentException("minReplicas must be at least 1, got " + minReplicas);
        }
    }

    /**
     * An IANA time zone by name ("Europe/Berlin", "America/New_York", "UTC"), as Kubernetes CronJob's
     * {@code timeZone} takes it; fixed offsets ("+02:00", "GMT+2") and the process's own zone are refused.
     *
     * @throws IllegalArgumentException naming the text when it is not an IANA time zone name
     */
    public static ZoneId timezone(String name) {
        if (name == null || !ZoneId.getAvailableZoneIds().contains(name)) {
            throw new IllegalArgumentException("timezone \"" + name
                    + "\" is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC)");
        }
        return ZoneId.of(name);
    }

    /**
     * The activation of this rule in force at {@code t}: the latest start at or before t, if t is before
     * that start plus the duration. (A start inside an activation begins a new one that ends later.)
     */
    public Optional<Activation> activationAt(Instant t) {
        Instant start = new ZonedCron(cron, timezone).latestStart(t.minus(duration), t);
        return start == null ? Optional.empty() : Optional.of(new Activation(start, start.plus(duration)));
    }

    /** One activation of a rule: active from {@code since} (inclusive) until {@code until} (exclusive). */
    public record Activation(Instant since, Instant until) {
    }

    /** For messages and traces: {@code "0 8 * * MON-FRI" for 10h in Europe/Berlin: minReplicas 10}. */
    @Override
    public String toString() {
        return "\"" + cron + "\" for " + GoDuration.format(duration) + " in " + timezone.getId() + ": minReplicas " + minReplicas;
    }
}
