/**
 * Scheduled scaling: rules that raise an HPA's effective {@code minReplicas} at known times.
 *
 * <p>A {@link io.hpacontroller.core.schedule.ScheduleRule} is {@code {cron, duration, timezone, minReplicas}}.
 * Each start of the cron (a standard five-field expression, see
 * {@link io.hpacontroller.core.schedule.CronExpression}) on the wall clock of the IANA time zone begins an
 * activation that lasts {@code duration}: the rule is active during {@code [start, start + duration)}.
 * {@link io.hpacontroller.core.schedule.Schedules#activeAt} gives the rule in force at an instant: among the
 * active rules the one with the highest {@code minReplicas} (the first written among equals), with its
 * position, and since and until when, for the decision trace. Outside every rule there is none and the
 * HPA's own {@code minReplicas} applies. The integration takes {@code max(spec.minReplicas, rule)}, capped
 * by {@code maxReplicas}; this package does not know the HPA.
 *
 * <p>Daylight saving time (see {@link io.hpacontroller.core.schedule.ZonedCron}) follows ISC cron, on
 * purpose not Kubernetes CronJob (robfig/cron), which skips a start inside the spring-forward gap and
 * starts twice in the repeated autumn hour: here a start in the gap begins at the transition, and a start
 * in the repeated hour begins once, at its first occurrence, unless the hour field starts with {@code *}
 * (then each real hour has its starts, so an around-the-clock rule has no hole).
 *
 * <p>Cost: whether a rule is active at {@code t} is the question "is there a start in
 * {@code (t - duration, t]}", answered by searching backwards from {@code t} over the wall-clock days of that
 * interval, each day in constant time (bit masks per field; a month that does not match is skipped whole).
 * A duration is at most 31 days, so one rule costs at most about 33 day-steps however long it lasts, and a
 * list has at most {@value io.hpacontroller.core.schedule.Schedules#MAX_RULES} rules.
 *
 * <p>Input: {@link io.hpacontroller.core.schedule.SchedulesAnnotation} reads the annotation
 * {@code autoscaling.hpa-controller.io/schedules} (JSON or YAML) or the mirror API's {@code spec.schedules}
 * into {@link io.hpacontroller.core.Parsed}: the rules, or a message naming the rule, the field and what it
 * accepts (for a condition with reason {@code InvalidAnnotation}). Unknown fields are errors.
 */
package io.hpacontroller.core.schedule;
