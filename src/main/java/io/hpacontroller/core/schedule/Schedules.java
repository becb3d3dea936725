package io.hpacontroller.core.schedule;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An HPA's scheduled rules, in the order written. At any instant the rule in force is the active one with
 * the highest {@code minReplicas} (the first written among equals); outside every rule there is none and
 * the HPA's own {@code minReplicas} applies.
 */
public record Schedules(List<ScheduleRule> rules) {

    /** Keeps the cost of one evaluation small and bounded: each rule is a few day-steps per sync. */
    public static final int MAX_RULES = 32;

    public Schedules {
        rules = List.copyOf(rules);
        if (rules.size() > MAX_RULES) {
            throw new IllegalArgumentException("at most " + MAX_RULES + " rules, got " + rules.size());
        }
    }

    /** The rule in force at {@code now}: the highest minReplicas among the active ones; empty when none is active. */
    public Optional<ActiveRule> activeAt(Instant now) {
        ActiveRule best = null;
        for (ActiveRule a : allActiveAt(now)) {
            if (best == null || a.rule().minReplicas() > best.rule().minReplicas()) {
                best = a;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Every rule active at {@code now}, in the order written. */
    public List<ActiveRule> allActiveAt(Instant now) {
        List<ActiveRule> active = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            ScheduleRule rule = rules.get(i);
            int index = i;
            rule.activationAt(now).ifPresent(a -> active.add(new ActiveRule(index, rule, a.since(), a.until())));
        }
        return active;
    }

    /**
     * A rule in force: which one (its position in the list), since when, until when.
     *
     * @param index position of the rule in the list as written (0-based)
     * @param since the start of the activation in force (inclusive)
     * @param until its end (exclusive); a later start of the same rule may extend it
     */
    public record ActiveRule(int index, ScheduleRule rule, Instant since, Instant until) {

        public int minReplicas() {
            return rule.minReplicas();
        }

        /**
         * For the decision trace: {@code schedules[1] "0 8 * * MON-FRI" (Europe/Berlin) active since
         * 2026-03-02T08:00+01:00 until 2026-03-02T18:00+01:00: minReplicas 10}.
         */
        public String describe() {
            DateTimeFormatter f = DateTimeFormatter.ISO_OFFSET_DATE_TIME;
            return "schedules[" + index + "] \"" + rule.cron() + "\" (" + rule.timezone().getId() + ") active since "
                    + f.format(since.atZone(rule.timezone())) + " until " + f.format(until.atZone(rule.timezone()))
                    + ": minReplicas " + rule.minReplicas();
        }
    }
}
