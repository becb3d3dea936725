package io.hpacontroller.core.schedule;

import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.SettingNode;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads the value of the annotation {@value #NAME} (or the mirror API's {@code spec.schedules}): a JSON or
 * YAML list of rules, each with exactly the fields {@code cron}, {@code duration}, {@code timezone} and
 * {@code minReplicas}, all required:
 * <pre>
 * - cron: "0 8 * * MON-FRI"
 *   duration: 10h
 *   timezone: Europe/Berlin
 *   minReplicas: 6
 * </pre>
 * An error names the rule and the field and says what is accepted, e.g.
 * {@code autoscaling.hpa-controller.io/schedules[1].duration: must be between 1m and 744h (31 days), got 0s}.
 */
public final class SchedulesAnnotation {

    public static final String NAME = "autoscaling.hpa-controller.io/schedules";
    private static final Set<String> FIELDS = Set.of("cron", "duration", "timezone", "minReplicas");

    private SchedulesAnnotation() {
    }

    /** Reads the annotation's value. */
    public static Parsed<Schedules> parse(String value) {
        try {
            return parse(SettingNode.read(value, NAME));
        } catch (IllegalArgumentException e) {
            return Parsed.invalid(e.getMessage());
        }
    }

    /** Reads a value already parsed (e.g. {@code spec.schedules} of the mirror API, with that path). */
    public static Parsed<Schedules> parse(SettingNode list) {
        try {
            List<SettingNode> items = list.list();
            if (items.size() > Schedules.MAX_RULES) {
                throw list.error("at most " + Schedules.MAX_RULES + " rules, got " + items.size());
            }
            List<ScheduleRule> rules = new ArrayList<>();
            for (SettingNode item : items) {
                rules.add(rule(item.mapping(FIELDS)));
            }
            return Parsed.valid(new Schedules(rules));
        } catch (IllegalArgumentException e) {
            return Parsed.invalid(e.getMessage());
        }
    }

    private static ScheduleRule rule(SettingNode item) {
        SettingNode cronNode = item.child("cron");
        CronExpression cron;
        try {
            cron = CronExpression.parse(cronNode.text("a 5-field cron such as \"0 8 * * MON-FRI\""));
        } catch (IllegalArgumentException e) {
            throw cronNode.errorFrom(e.getMessage());
        }
        SettingNode durationNode = item.child("duration");
        Duration duration = durationNode.duration("10h");
        SettingNode zoneNode = item.child("timezone");
        ZoneId zone;
        try {
            zone = ScheduleRule.timezone(zoneNode.text("an IANA time zone such as Europe/Berlin or UTC"));
        } catch (IllegalArgumentException e) {
            throw zoneNode.errorFrom(e.getMessage());
        }
        SettingNode minNode = item.child("minReplicas");
        int minReplicas = minNode.integer("a whole number of at least 1");
        try {
            return new ScheduleRule(cron, duration, zone, minReplicas);
        } catch (IllegalArgumentException e) {
            throw (e.getMessage().startsWith("duration") ? durationNode : minNode).errorFrom(e.getMessage());
        }
    }
}
