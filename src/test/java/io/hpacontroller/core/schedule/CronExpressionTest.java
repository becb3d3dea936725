package io.hpacontroller.core.schedule;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.time.LocalDateTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CronExpressionTest {

    private static boolean matches(String cron, String localDateTime) {
        return CronExpression.parse(cron).matches(LocalDateTime.parse(localDateTime));
    }

    @ParameterizedTest(name = "{0} at {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "* * * * *            | 2026-03-04T13:37 | true",
            "0 8 * * *            | 2026-03-04T08:00 | true",
            "0 8 * * *            | 2026-03-04T08:01 | false",
            "*/15 * * * *         | 2026-03-04T10:45 | true",
            "*/15 * * * *         | 2026-03-04T10:50 | false",
            "5/15 * * * *         | 2026-03-04T10:50 | true",
            "5/15 * * * *         | 2026-03-04T10:00 | false",
            "1-30/10 * * * *      | 2026-03-04T10:21 | true",
            "1-30/10 * * * *      | 2026-03-04T10:31 | false",
            "0,30 9-17 * * *      | 2026-03-04T17:30 | true",
            "0,30 9-17 * * *      | 2026-03-04T18:00 | false",
            "0 8 * * MON-FRI      | 2026-03-06T08:00 | true",   // a Friday
            "0 8 * * MON-FRI      | 2026-03-07T08:00 | false",  // a Saturday
            "0 8 * * mon-fri      | 2026-03-02T08:00 | true",
            "0 8 * * 0            | 2026-03-08T08:00 | true",   // Sunday as 0
            "0 8 * * 7            | 2026-03-08T08:00 | true",   // and as 7
            "0 8 * * 5-7          | 2026-03-08T08:00 | true",
            "0 8 * * 5-7          | 2026-03-09T08:00 | false",
            "0 8 * * SUN          | 2026-03-08T08:00 | true",
            "0 0 1 JAN *          | 2026-01-01T00:00 | true",
            "0 0 1 jan-mar *      | 2026-02-01T00:00 | true",
            "0 0 1 JAN-MAR *      | 2026-04-01T00:00 | false",
            "0 0 * DEC *          | 2026-12-24T00:00 | true",
            "0 9 1 * MON          | 2026-03-01T09:00 | true",   // the 1st (a Sunday): day-of-month matches
            "0 9 1 * MON          | 2026-03-02T09:00 | true",   // a Monday: day-of-week matches (cron's OR rule)
            "0 9 1 * MON          | 2026-03-03T09:00 | false",
            "0 9 */2 * MON        | 2026-03-02T09:00 | false",  // day-of-month starts with *: both must match
            "0 9 */2 * MON        | 2026-03-09T09:00 | true",
            "0 9 1-7 * *          | 2026-03-07T09:00 | true",
            "0 9 1-7 * *          | 2026-03-08T09:00 | false",
            "0 9 * * */2          | 2026-03-03T09:00 | true",   // Tuesday (2)
            "0 9 29 2 *           | 2028-02-29T09:00 | true",
            "59 23 31 12 SAT      | 2026-12-31T23:59 | true",
    })
    void matchesWallClockMinutes(String cron, String at, boolean expected) {
        assertThat(matches(cron.trim(), at.trim())).isEqualTo(expected);
    }

    @Test
    void secondsAreIgnoredAndExtraSpacesAreFine() {
        assertThat(matches("  0   8 * *  *  ", "2026-03-04T08:00:42")).isTrue();
        assertThat(CronExpression.parse(" 0 8 * * * ").toString()).isEqualTo("0 8 * * *");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
            "''                   | cron is empty",
            "0 8 * *              | has 4 fields, want 5: minute hour day-of-month month day-of-week",
            "0 0 8 * * *          | has 6 fields, want 5: minute hour day-of-month month day-of-week (a seconds or year field is not supported)",
            "0 0 8 * * * 2026     | seconds and year fields are not supported",
            "@every 1h            | descriptors such as @daily and @every are not supported",
            "@daily               | (@daily is \"0 0 * * *\")",
            "CRON_TZ=UTC 0 8 * * *| a time zone inside the cron is not supported; use the timezone field",
            "60 8 * * *           | minute \"60\": 60 is out of range 0-59",
            "0 24 * * *           | hour \"24\": 24 is out of range 0-23",
            "0 8 0 * *            | day-of-month \"0\": 0 is out of range 1-31",
            "0 8 32 * *           | day-of-month \"32\": 32 is out of range 1-31",
            "0 8 * 13 *           | month \"13\": 13 is out of range 1-12",
            "0 8 * * 8            | day-of-week \"8\": 8 is out of range 0-7",
            "0 8 * FOO *          | month \"FOO\": \"FOO\" is not a number 1-12 or a name JAN-DEC",
            "0 8 * * MONDAY       | day-of-week \"MONDAY\": \"MONDAY\" is not a number 0-7 or a name SUN-SAT",
            "0 8 * JAN MON-FRIDAY | day-of-week \"MON-FRIDAY\"",
            "x 8 * * *            | minute \"x\": \"x\" is not a number 0-59",
            "0 8 ? * MON          | day-of-month \"?\": '?' is not standard cron; use *",
            "0 8 L * *            | day-of-month \"L\": L, W and # are not supported",
            "0 8 15W * *          | L, W and # are not supported",
            "0 8 * * 5#3          | L, W and # are not supported",
            "0 8 * * SAT-SUN      | day-of-week \"SAT-SUN\": range SAT-SUN goes backwards (write a list instead, e.g. SAT,SUN)",
            "0 22-2 * * *         | hour \"22-2\": range 22-2 goes backwards",
            "*/0 8 * * *          | minute \"*/0\": a step must be at least 1",
            "*/x 8 * * *          | minute \"*/x\": step \"x\" is not a number",
            "0,,5 8 * * *         | minute \"0,,5\": empty list element",
            "0 0 30 2 *           | never matches",
            "0 0 31 APR,JUN *     | never matches",
    })
    void refusesWithAMessageNamingTheField(String cron, String message) {
        assertThatThrownBy(() -> CronExpression.parse(cron))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message.trim());
    }

    @Test
    void theMessageQuotesTheExpression() {
        assertThatThrownBy(() -> CronExpression.parse("0 25 * * *"))
                .hasMessage("cron \"0 25 * * *\": hour \"25\": 25 is out of range 0-23");
    }

    @Test
    void aDayThatOnlySomeMonthsHaveIsFine() {
        assertThat(matches("0 0 31 * *", "2026-01-31T00:00")).isTrue();
        assertThat(matches("0 0 30 2 MON", "2026-02-02T00:00")).as("OR rule: Mondays").isTrue();
    }

    @Test
    void latestAtOrBeforeSkipsDaysAndMonthsThatDoNotMatch() {
        CronExpression cron = CronExpression.parse("15 9,17 * MAR MON");
        LocalDate floor = LocalDate.parse("2025-01-01");
        assertThat(cron.latestAtOrBefore(LocalDateTime.parse("2026-03-09T17:15"), floor))
                .isEqualTo(LocalDateTime.parse("2026-03-09T17:15"));
        assertThat(cron.latestAtOrBefore(LocalDateTime.parse("2026-03-09T17:14:59"), floor))
                .isEqualTo(LocalDateTime.parse("2026-03-09T09:15"));
        assertThat(cron.latestAtOrBefore(LocalDateTime.parse("2026-03-09T09:14"), floor))
                .isEqualTo(LocalDateTime.parse("2026-03-02T17:15"));
        assertThat(cron.latestAtOrBefore(LocalDateTime.parse("2026-03-01T23:59"), floor))
                .as("back to the last Monday of the previous March").isEqualTo(LocalDateTime.parse("2025-03-31T17:15"));
        assertThat(cron.latestAtOrBefore(LocalDateTime.parse("2026-03-01T23:59"), LocalDate.parse("2025-04-01"))).isNull();
    }
}
