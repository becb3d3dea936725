package io.hpacontroller.core.schedule;

import io.hpacontroller.core.schedule.ScheduleRule.Activation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScheduleRuleTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final ZoneId UTC = ZoneId.of("UTC");

    private static ScheduleRule rule(String cron, String duration, ZoneId zone) {
        return new ScheduleRule(CronExpression.parse(cron), Duration.parse("PT" + duration.toUpperCase()), zone, 5);
    }

    private static Optional<Activation> at(ScheduleRule rule, String instant) {
        return rule.activationAt(Instant.parse(instant));
    }

    private static Activation activation(String since, String until) {
        return new Activation(Instant.parse(since), Instant.parse(until));
    }

    @Test
    void activeFromEachStartForTheDuration() {
        ScheduleRule r = rule("0 8 * * *", "10h", UTC);
        assertThat(at(r, "2026-03-04T07:59:59Z")).isEmpty();
        assertThat(at(r, "2026-03-04T08:00:00Z")).contains(activation("2026-03-04T08:00:00Z", "2026-03-04T18:00:00Z"));
        assertThat(at(r, "2026-03-04T17:59:59.999Z")).isPresent();
        assertThat(at(r, "2026-03-04T18:00:00Z")).as("the end is exclusive").isEmpty();
    }

    @Test
    void aRuleSpanningMidnight() {
        ScheduleRule r = rule("0 22 * * *", "8h", UTC);
        assertThat(at(r, "2026-03-05T03:00:00Z")).contains(activation("2026-03-04T22:00:00Z", "2026-03-05T06:00:00Z"));
        assertThat(at(r, "2026-03-05T06:00:00Z")).isEmpty();
        assertThat(at(r, "2026-03-04T23:30:00Z")).contains(activation("2026-03-04T22:00:00Z", "2026-03-05T06:00:00Z"));
    }

    @Test
    void aWeekdayRuleAcrossTheWeekend() {
        ScheduleRule evenings = rule("0 20 * * MON-FRI", "14h", UTC);
        // 2026-03-06 is a Friday: its evening start lasts into Saturday morning, and nothing starts on the weekend
        assertThat(at(evenings, "2026-03-07T09:59:00Z")).contains(activation("2026-03-06T20:00:00Z", "2026-03-07T10:00:00Z"));
        assertThat(at(evenings, "2026-03-07T10:00:00Z")).isEmpty();
        assertThat(at(evenings, "2026-03-07T21:00:00Z")).isEmpty();
        assertThat(at(evenings, "2026-03-08T21:00:00Z")).isEmpty();
        assertThat(at(evenings, "2026-03-09T20:00:00Z")).contains(activation("2026-03-09T20:00:00Z", "2026-03-10T10:00:00Z"));

        ScheduleRule office = rule("0 8 * * MON-FRI", "10h", UTC);
        assertThat(at(office, "2026-03-07T09:00:00Z")).isEmpty();
        assertThat(at(office, "2026-03-09T08:00:00Z")).isPresent();
    }

    @Test
    void aLaterStartInsideAnActivationBeginsANewOne() {
        ScheduleRule r = rule("*/10 * * * *", "30m", UTC);
        assertThat(at(r, "2026-03-04T10:25:00Z")).contains(activation("2026-03-04T10:20:00Z", "2026-03-04T10:50:00Z"));
    }

    @Test
    void aLongRuleIsFoundWithoutWalkingItMinuteByMinute() {
        ScheduleRule month = rule("0 0 1 * *", "744h", UTC);
        assertThat(at(month, "2026-03-31T23:59:00Z")).contains(activation("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"));
        ScheduleRule leapDay = rule("0 0 29 2 *", "744h", UTC);
        assertThat(at(leapDay, "2028-03-15T00:00:00Z")).contains(activation("2028-02-29T00:00:00Z", "2028-03-31T00:00:00Z"));
        assertThat(at(leapDay, "2027-03-15T00:00:00Z")).isEmpty();
        ScheduleRule everyMinute = rule("* * * * *", "744h", UTC);
        assertThat(at(everyMinute, "2026-03-04T10:25:30Z")).contains(activation("2026-03-04T10:25:00Z", "2026-04-04T10:25:00Z"));
    }

    @Test
    void theWallClockOfTheZoneCounts() {
        ScheduleRule r = rule("0 8 * * MON-FRI", "10h", BERLIN);
        assertThat(at(r, "2026-03-02T07:00:00Z")).as("08:00 CET").contains(activation("2026-03-02T07:00:00Z", "2026-03-02T17:00:00Z"));
        assertThat(at(r, "2026-06-01T06:00:00Z")).as("08:00 CEST").contains(activation("2026-06-01T06:00:00Z", "2026-06-01T16:00:00Z"));
        assertThat(at(r, "2026-06-01T05:59:00Z")).isEmpty();
    }

    @Test
    void springForwardInBerlinAStartInTheGapStartsAtTheTransition() {
        // 2026-03-29: 02:00 CET (01:00Z) becomes 03:00 CEST; 02:30 does not exist that day
        ScheduleRule r = rule("30 2 * * *", "1h", BERLIN);
        assertThat(at(r, "2026-03-28T01:30:00Z")).as("the day before: 02:30 CET")
                .contains(activation("2026-03-28T01:30:00Z", "2026-03-28T02:30:00Z"));
        assertThat(at(r, "2026-03-29T00:59:59Z")).isEmpty();
        assertThat(at(r, "2026-03-29T01:00:00Z")).as("03:00 CEST, not skipped (Kubernetes CronJob skips it)")
                .contains(activation("2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"));
        assertThat(at(r, "2026-03-30T00:30:00Z")).as("the day after: 02:30 CEST")
                .contains(activation("2026-03-30T00:30:00Z", "2026-03-30T01:30:00Z"));
    }

    @Test
    void fallBackInBerlinAStartInTheRepeatedHourStartsOnce() {
        // 2026-10-25: 03:00 CEST (01:00Z) becomes 02:00 CET; 02:30 happens at 00:30Z and again at 01:30Z
        ScheduleRule r = rule("30 2 * * *", "45m", BERLIN);
        assertThat(at(r, "2026-10-25T00:30:00Z")).contains(activation("2026-10-25T00:30:00Z", "2026-10-25T01:15:00Z"));
        assertThat(at(r, "2026-10-25T01:15:00Z")).isEmpty();
        assertThat(at(r, "2026-10-25T01:30:00Z")).as("02:30 CET: no second start (Kubernetes CronJob starts again)").isEmpty();
        assertThat(at(r, "2026-10-25T01:59:00Z")).isEmpty();

        ScheduleRule longer = rule("30 2 * * *", "90m", BERLIN);
        assertThat(at(longer, "2026-10-25T01:45:00Z")).as("in the second pass, the first pass's start is in force")
                .contains(activation("2026-10-25T00:30:00Z", "2026-10-25T02:00:00Z"));
    }

    @Test
    void anAroundTheClockRuleHasNoHoleAcrossEitherChange() {
        ScheduleRule r = rule("*/30 * * * *", "30m", BERLIN);
        for (String day : new String[]{"2026-03-29", "2026-10-25"}) {
            Instant from = Instant.parse(day + "T00:00:00Z");
            for (int minute = 0; minute < 4 * 60; minute++) {
                Instant t = from.plusSeconds(minute * 60L);
                assertThat(r.activationAt(t)).as(t.toString()).isPresent();
            }
        }
        // the repeated hour gets its own starts: 02:00 CET and 02:30 CET
        assertThat(at(r, "2026-10-25T01:10:00Z")).contains(activation("2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z"));
        assertThat(at(r, "2026-10-25T01:40:00Z")).contains(activation("2026-10-25T01:30:00Z", "2026-10-25T02:00:00Z"));
        ScheduleRule hourly = rule("0 * * * *", "10m", BERLIN);
        assertThat(at(hourly, "2026-10-25T00:05:00Z")).as("02:00 CEST").isPresent();
        assertThat(at(hourly, "2026-10-25T01:05:00Z")).as("02:00 CET").isPresent();
    }

    @Test
    void newYorkSpringForwardAndFallBack() {
        // 2026-03-08: 02:00 EST (07:00Z) becomes 03:00 EDT
        ScheduleRule twoAm = rule("0 2 * * *", "1h", NEW_YORK);
        assertThat(at(twoAm, "2026-03-08T07:00:00Z")).contains(activation("2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"));
        assertThat(at(twoAm, "2026-03-07T07:00:00Z")).as("02:00 EST the day before").isPresent();
        // 2026-11-01: 02:00 EDT (06:00Z) becomes 01:00 EST; 01:30 happens at 05:30Z and at 06:30Z
        ScheduleRule halfPastOne = rule("30 1 * * *", "2h", NEW_YORK);
        assertThat(at(halfPastOne, "2026-11-01T06:30:00Z")).as("still the first start, not a new one")
                .contains(activation("2026-11-01T05:30:00Z", "2026-11-01T07:30:00Z"));
        assertThat(at(halfPastOne, "2026-11-01T07:30:00Z")).isEmpty();
    }

    @Test
    void refusesOutOfRangeValues() {
        CronExpression cron = CronExpression.parse("0 8 * * *");
        assertThatThrownBy(() -> new ScheduleRule(cron, Duration.ZERO, UTC, 3))
                .hasMessage("duration must be between 1m and 744h (31 days), got 0s");
        assertThatThrownBy(() -> new ScheduleRule(cron, Duration.ofMinutes(-5), UTC, 3))
                .hasMessageContaining("got -5m0s");
        assertThatThrownBy(() -> new ScheduleRule(cron, Duration.ofDays(32), UTC, 3))
                .hasMessageContaining("between 1m and 744h");
        assertThatThrownBy(() -> new ScheduleRule(cron, Duration.ofHours(1), UTC, -1))
                .hasMessage("minReplicas must be at least 1, got -1");
        assertThatThrownBy(() -> new ScheduleRule(cron, Duration.ofHours(1), UTC, 0))
                .hasMessage("minReplicas must be at least 1, got 0");
    }

    @Test
    void timezonesAreIanaNames() {
        assertThat(ScheduleRule.timezone("Europe/Berlin")).isEqualTo(BERLIN);
        assertThat(ScheduleRule.timezone("UTC")).isEqualTo(ZoneId.of("UTC"));
        for (String bad : new String[]{"Europe/Berln", "+02:00", "GMT+2", "UTC+01:00", "CET ", "", "Local"}) {
            assertThatThrownBy(() -> ScheduleRule.timezone(bad)).as(bad)
                    .hasMessage("timezone \"" + bad + "\" is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC)");
        }
    }
}
