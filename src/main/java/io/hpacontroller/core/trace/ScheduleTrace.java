package io.hpacontroller.core.trace;

/**
 * The scheduled rules (annotation {@code autoscaling.hpa-controller.io/schedules}) as one sync applied them.
 *
 * @param activeRule      the rule in force, in words ({@code schedules[1] "0 8 * * MON-FRI" (Europe/Berlin) active since
 *                        ... until ...: minReplicas 10}); null when none is active or the HPA has no rules
 * @param specMinReplicas spec.minReplicas (1 when unset); -1 when the HPA has no rules
 * @param minReplicas     the effective minReplicas: {@code max(spec.minReplicas, the rule's)} capped by maxReplicas while a
 *                        rule is active, spec.minReplicas otherwise; -1 when the HPA has no rules
 */
public record ScheduleTrace(String activeRule, int specMinReplicas, int minReplicas) {

    /** No rules. */
    public static final ScheduleTrace NONE = new ScheduleTrace(null, -1, -1);

    /** Whether a rule raised minReplicas above the spec's. */
    public boolean raised() {
        return activeRule != null && minReplicas > specMinReplicas;
    }
}
