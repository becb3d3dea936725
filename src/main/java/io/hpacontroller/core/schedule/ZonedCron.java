package io.hpacontroller.core.schedule;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;

/**
 * A cron expression read on the wall clock of a time zone: the instants at which it starts.
 *
 * <p>Daylight saving time, as ISC (Vixie) cron handles it rather than Kubernetes CronJob (robfig/cron),
 * because a skipped start would leave a day without its capacity:
 * <ul>
 *   <li>A start whose wall-clock time does not exist (inside the spring-forward gap: 02:30 in Europe/Berlin on
 *       the last Sunday of March) starts at the transition, the first instant after the gap (03:00 CEST).
 *       CronJob skips it.</li>
 *   <li>A start whose wall-clock time occurs twice (inside the repeated autumn hour) starts once, at the first
 *       occurrence, when the hour field is restricted ({@code 30 2 * * *}). CronJob starts twice.</li>
 *   <li>When the hour field starts with {@code *} ({@code *}{@code /10 * * * *}, {@code 0 * * * *}), the rule
 *       follows the clock hour by hour: the repeated hour gets its starts both times, so a rule meant to be
 *       active around the clock has no hole. (ISC cron treats such "wildcard" jobs the same way.)</li>
 * </ul>
 */
final class ZonedCron {

    private final CronExpression cron;
    private final ZoneId zone;
    private final ZoneRules rules;

    ZonedCron(CronExpression cron, ZoneId zone) {
        this.cron = cron;
        this.zone = zone;
        this.rules = zone.getRules();
    }

    /**
     * The latest start in {@code (after, t]}, or null when there is none. Looks back over the local days
     * from {@code after} to {@code t} (plus one for the zone's offset changes), each in constant time.
     */
    Instant latestStart(Instant after, Instant t) {
        LocalDateTime local = LocalDateTime.ofInstant(t, zone);
        LocalDate earliest = LocalDateTime.ofInstant(after, zone).toLocalDate().minusDays(1);
        Instant best = startAtOrBefore(cron.latestAtOrBefore(local, earliest), t);
        ZoneOffsetTransition transition = rules.getTransition(local);
        if (transition != null && transition.isOverlap() && rules.getOffset(t).equals(transition.getOffsetAfter())) {
            // t is in the second pass of a repeated hour: the first pass's later wall-clock times started before t too
            LocalDateTime endOfFirstPass = transition.getDateTimeBefore().minusNanos(1);
            Instant fromFirstPass = startAtOrBefore(cron.latestAtOrBefore(endOfFirstPass, earliest), t);
            if (best == null || fromFirstPass != null && fromFirstPass.isAfter(best)) {
                best = fromFirstPass;
            }
        }
        return best != null && best.isAfter(after) ? best : null;
    }

    /** The instant a matching wall-clock time starts at: the latest of its occurrences not after t. */
    private Instant startAtOrBefore(LocalDateTime start, Instant t) {
        if (start == null) {
            return null;
        }
        List<ZoneOffset> offsets = rules.getValidOffsets(start);
        Instant instant;
        if (offsets.isEmpty()) {
            instant = rules.getTransition(start).getInstant();  // in the gap: at the transition
        } else if (offsets.size() == 1 || !cron.hourWildcard()) {
            instant = start.toInstant(offsets.get(0));  // the only, or the first, occurrence
        } else {
            Instant second = start.toInstant(offsets.get(1));
            instant = second.isAfter(t) ? start.toInstant(offsets.get(0)) : second;
        }
        return instant.isAfter(t) ? null : instant;
    }
}
