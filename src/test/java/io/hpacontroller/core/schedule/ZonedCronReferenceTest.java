package io.hpacontroller.core.schedule;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search against a brute-force reference: every wall-clock minute of the days around the instant is
 * matched, mapped to its start instants by the daylight-saving rules written out plainly, and the latest
 * start is picked from the full set. Random expressions, zones with unusual changes (a 30-minute shift on
 * Lord Howe Island, a midnight that did not exist in Sao Paulo in 2018), mostly instants near a change.
 */
class ZonedCronReferenceTest {

    private static final List<String> ZONES = List.of("UTC", "Europe/Berlin", "America/New_York",
            "Australia/Lord_Howe", "America/Sao_Paulo", "Asia/Kolkata");
    private static final List<String> YEARS = List.of("2018", "2026");

    @Test
    void latestStartAgreesWithEnumeratingEveryMinute() {
        Random random = new Random(18);
        int compared = 0;
        int active = 0;
        for (int i = 0; i < 800; i++) {
            CronExpression cron;
            try {
                cron = CronExpression.parse(randomCron(random));
            } catch (IllegalArgumentException neverMatches) {
                continue;
            }
            ZoneId zone = ZoneId.of(ZONES.get(random.nextInt(ZONES.size())));
            Instant t;
            ZoneOffsetTransition change = zone.getRules().nextTransition(
                    Instant.parse(YEARS.get(random.nextInt(YEARS.size())) + "-01-01T00:00:00Z").plusSeconds(random.nextInt(366 * 86400)));
            if (change != null && random.nextInt(4) != 0) {
                t = change.getInstant().plusSeconds(random.nextInt(5 * 3600) - 2 * 3600);  // around a change
            } else {
                LocalDate day = LocalDate.parse(YEARS.get(random.nextInt(YEARS.size())) + "-06-15").plusDays(random.nextInt(200));
                t = day.atStartOfDay(zone).toInstant().plusSeconds(random.nextInt(24 * 3600));
            }
            Duration lookBack = Duration.ofMinutes(1 + random.nextInt(2 * 24 * 60));
            Instant after = t.minus(lookBack);

            Instant expected = reference(cron, zone, after, t);
            Instant actual = new ZonedCron(cron, zone).latestStart(after, t);
            assertThat(actual).as("%s in %s, (%s, %s]", cron, zone, after, t).isEqualTo(expected);
            compared++;
            if (actual != null) {
                active++;
            }
        }
        assertThat(compared).isGreaterThan(550);
        assertThat(active).as("enough cases where a start was found").isGreaterThan(150);
    }

    private static Instant reference(CronExpression cron, ZoneId zone, Instant after, Instant t) {
        ZoneRules rules = zone.getRules();
        TreeSet<Instant> starts = new TreeSet<>();
        LocalDate first = LocalDateTime.ofInstant(after, zone).toLocalDate().minusDays(1);
        LocalDate last = LocalDateTime.ofInstant(t, zone).toLocalDate().plusDays(1);
        for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
            for (int minute = 0; minute < 24 * 60; minute++) {
                LocalDateTime local = d.atTime(minute / 60, minute % 60);
                if (!cron.matches(local)) {
                    continue;
                }
                List<ZoneOffset> offsets = rules.getValidOffsets(local);
                if (offsets.isEmpty()) {
                    starts.add(rules.getTransition(local).getInstant());
                } else {
                    starts.add(local.toInstant(offsets.get(0)));
                    if (offsets.size() == 2 && cron.hourWildcard()) {
                        starts.add(local.toInstant(offsets.get(1)));
                    }
                }
            }
        }
        Instant latest = starts.floor(t);
        return latest != null && latest.isAfter(after) ? latest : null;
    }

    private static String randomCron(Random r) {
        return field(r, 0, 59) + " " + field(r, 0, 23) + " " + (r.nextInt(3) == 0 ? field(r, 1, 31) : "*") + " "
                + (r.nextInt(5) == 0 ? field(r, 1, 12) : "*") + " " + (r.nextInt(3) == 0 ? field(r, 0, 7) : "*");
    }

    private static String field(Random r, int min, int max) {
        int a = min + r.nextInt(max - min + 1);
        int b = a + r.nextInt(max - a + 1);
        return switch (r.nextInt(6)) {
            case 0 -> "*";
            case 1 -> "*/" + (1 + r.nextInt(Math.max(1, (max - min) / 2)));
            case 2 -> Integer.toString(a);
            case 3 -> a + "-" + b;
            case 4 -> a + "-" + b + "/" + (1 + r.nextInt(4));
            default -> a + "," + b + "," + (min + r.nextInt(max - min + 1));
        };
    }
}
