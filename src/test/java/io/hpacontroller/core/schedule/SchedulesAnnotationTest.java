package io.hpacontroller.core.schedule;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.SettingNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import static org.assertj.core.api.Assertions.assertThat;

class SchedulesAnnotationTest {

    private static final String PREFIX = "autoscaling.hpa-controller.io/schedules";

    private static Schedules valid(String value) {
        Parsed<Schedules> parsed = SchedulesAnnotation.parse(value);
        assertThat(parsed).isInstanceOf(Parsed.Valid.class);
        return ((Parsed.Valid<Schedules>) parsed).value();
    }

    private static String invalid(String value) {
        Parsed<Schedules> parsed = SchedulesAnnotation.parse(value);
        assertThat(parsed).isInstanceOf(Parsed.Invalid.class);
        return ((Parsed.Invalid<Schedules>) parsed).message();
    }

    @Test
    void yamlAndJsonGiveTheSameRules() {
        Schedules yaml = valid("""
                - cron: "0 8 * * MON-FRI"
                  duration: 10h
                  timezone: Europe/Berlin
                  minReplicas: 6
                - cron: 0 20 * * FRI
                  duration: 2d
                  timezone: UTC
                  minReplicas: 2
                """);
        Schedules json = valid("[{\"cron\": \"0 8 * * MON-FRI\", \"duration\": \"10h\", \"timezone\": \"Europe/Berlin\", \"minReplicas\": 6},"
                + " {\"cron\": \"0 20 * * FRI\", \"duration\": \"48h\", \"timezone\": \"UTC\", \"minReplicas\": 2}]");
        assertThat(yaml).isEqualTo(json);
        assertThat(yaml.rules()).hasSize(2);
        ScheduleRule first = yaml.rules().get(0);
        assertThat(first.cron().toString()).isEqualTo("0 8 * * MON-FRI");
        assertThat(first.duration()).isEqualTo(Duration.ofHours(10));
        assertThat(first.timezone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(first.minReplicas()).isEqualTo(6);
        assertThat(valid("[]").rules()).isEmpty();
        assertThat(valid("[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 3}]").rules()).hasSize(1);
    }

    @Test
    void theRuleInForceNamesItselfForTheTrace() {
        Schedules s = valid("""
                - {cron: "0 8 * * *", duration: 10h, timezone: UTC, minReplicas: 4}
                - {cron: "0 12 * * *", duration: 2h, timezone: UTC, minReplicas: 9}
                - {cron: "0 9 * * *", duration: 4h, timezone: UTC, minReplicas: 9}
                - {cron: "0 7 * * *", duration: 12h, timezone: UTC, minReplicas: 1}
                """);
        assertThat(s.activeAt(Instant.parse("2026-03-04T06:59:00Z"))).isEmpty();
        assertThat(s.activeAt(Instant.parse("2026-03-04T07:30:00Z")).orElseThrow().index()).isEqualTo(3);
        assertThat(s.activeAt(Instant.parse("2026-03-04T08:30:00Z")).orElseThrow().index()).isEqualTo(0);
        assertThat(s.activeAt(Instant.parse("2026-03-04T10:00:00Z")).orElseThrow().index()).isEqualTo(2);
        Schedules.ActiveRule noon = s.activeAt(Instant.parse("2026-03-04T12:30:00Z")).orElseThrow();
        assertThat(noon.index()).as("two rules with 9: the first written").isEqualTo(1);
        assertThat(noon.minReplicas()).isEqualTo(9);
        assertThat(s.allActiveAt(Instant.parse("2026-03-04T12:30:00Z"))).extracting(Schedules.ActiveRule::index)
                .containsExactly(0, 1, 2, 3);
        assertThat(noon.describe()).isEqualTo("schedules[1] \"0 12 * * *\" (UTC) active since 2026-03-04T12:00:00Z"
                + " until 2026-03-04T14:00:00Z: minReplicas 9");
        assertThat(s.activeAt(Instant.parse("2026-03-04T14:30:00Z")).orElseThrow().index()).isEqualTo(0);
        assertThat(s.activeAt(Instant.parse("2026-03-04T18:30:00Z")).orElseThrow().index()).isEqualTo(3);
        assertThat(s.activeAt(Instant.parse("2026-03-04T19:00:00Z"))).isEmpty();
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', value = {
            "[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 3, name: x}]"
                    + "| [0].name: unknown field (known fields: cron, duration, minReplicas, timezone)",
            "[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minreplicas: 3}]"
                    + "| [0].minreplicas: unknown field",
            "[{duration: 1h, timezone: UTC, minReplicas: 3}]"
                    + "| [0].cron: required (a 5-field cron such as \"0 8 * * MON-FRI\")",
            "[{cron: '0 25 * * *', duration: 1h, timezone: UTC, minReplicas: 3}]"
                    + "| [0].cron: \"0 25 * * *\": hour \"25\": 25 is out of range 0-23",
            "[{cron: '0 0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 3}]"
                    + "| [0].cron: \"0 0 8 * * *\": has 6 fields, want 5",
            "[{cron: '@every 1h', duration: 1h, timezone: UTC, minReplicas: 3}]"
                    + "| [0].cron: \"@every 1h\": descriptors such as @daily and @every are not supported",
            "[{cron: 8, duration: 1h, timezone: UTC, minReplicas: 3}]"
                    + "| [0].cron: expected a 5-field cron such as \"0 8 * * MON-FRI\", got 8",
            "[{cron: '0 8 * * *', duration: 0s, timezone: UTC, minReplicas: 3}]"
                    + "| [0].duration: must be between 1m and 744h (31 days), got 0s",
            "[{cron: '0 8 * * *', duration: -1h, timezone: UTC, minReplicas: 3}]"
                    + "| [0].duration: must be between 1m and 744h (31 days), got -1h0m0s",
            "[{cron: '0 8 * * *', duration: 10 hours, timezone: UTC, minReplicas: 3}]"
                    + "| [0].duration: invalid duration \"10 hours\"",
            "[{cron: '0 8 * * *', duration: 3600, timezone: UTC, minReplicas: 3}]"
                    + "| [0].duration: expected a duration such as 10h, got 3600",
            "[{cron: '0 8 * * *', duration: 1h, timezone: Europe/Berln, minReplicas: 3}]"
                    + "| [0].timezone: \"Europe/Berln\" is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC)",
            "[{cron: '0 8 * * *', duration: 1h, minReplicas: 3}]"
                    + "| [0].timezone: required (an IANA time zone such as Europe/Berlin or UTC)",
            "[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: -1}]"
                    + "| [0].minReplicas: must be at least 1, got -1",
            "[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: '3'}]"
                    + "| [0].minReplicas: expected a whole number of at least 1, got \"3\"",
            "[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 2.5}]"
                    + "| [0].minReplicas: expected a whole number of at least 1, got 2.5",
            "[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 99999999999}]"
                    + "| [0].minReplicas: expected a whole number of at least 1, got 99999999999",
            "{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 3}"
                    + "| : expected a list, got a mapping",
            "[3]"
                    + "| [0]: expected a mapping with the keys cron, duration, minReplicas, timezone, got 3",
            "'   '"
                    + "| : empty",
            "- cron: * * * * *"
                    + "| : not valid JSON or YAML: while scanning an alias",
            "[{\"cron\": \"0 8 * * *\", \"cron\": \"0 9 * * *\"}]"
                    + "| : not valid JSON or YAML: while constructing a mapping: found duplicate key cron (at line 1",
            "[{\"cron\": \"0 8 * * *\"}] trailing"
                    + "| : not valid JSON or YAML",
            "'[1, 2'"
                    + "| : not valid JSON or YAML",
            "'- a: 1\n---\n- b: 2'"
                    + "| : not valid JSON or YAML: more than one YAML document",
    })
    void aMistakeIsNamedWithItsPlaceAndTheAcceptedValues(String value, String message) {
        assertThat(invalid(value.replace("\\n", "\n"))).contains(PREFIX + message.trim());
    }

    @Test
    void aCronStartingWithAStarNeedsQuotesInYamlAndTheMessageSaysSo() {
        assertThat(invalid("- cron: */5 * * * *\n  duration: 1h\n  timezone: UTC\n  minReplicas: 2"))
                .contains("quote a value that starts with *");
    }

    @Test
    void tooManyRules() {
        StringBuilder yaml = new StringBuilder();
        for (int i = 0; i <= Schedules.MAX_RULES; i++) {
            yaml.append("- {cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 3}\n");
        }
        assertThat(invalid(yaml.toString())).isEqualTo(PREFIX + ": at most 32 rules, got 33");
    }

    @Test
    void theMirrorApiFieldIsReadTheSameWayWithItsOwnPath() throws Exception {
        var node = new ObjectMapper().readTree("[{\"cron\": \"0 8 * * *\", \"duration\": \"1h\", \"timezone\": \"UTC\", \"minReplicas\": 0}]");
        Parsed<Schedules> parsed = SchedulesAnnotation.parse(SettingNode.of(node, "spec.schedules"));
        assertThat(parsed).isEqualTo(Parsed.invalid("spec.schedules[0].minReplicas: must be at least 1, got 0"));
    }
}
