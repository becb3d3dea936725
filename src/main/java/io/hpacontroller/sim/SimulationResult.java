package io.hpacontroller.sim;

import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.List;

/**
 * What a simulation produced.
 *
 * @param scenario   the scenario run
 * @param timeline   one row per HPA per sync, in time order
 * @param summaries  the figures of each HPA spec, in the scenario's order
 * @param demand     the demand over time
 * @param capacity   each HPA's capacity over time (same order as summaries); empty when the workload has none
 * @param replicas   each HPA's replica count over time
 * @param events     the events the core recorded
 * @param violations descriptions of the first invariant violations (empty when none)
 * @param firstLoadIncreaseMillis when the demand first rose, -1 if never
 * @param steps      the model's steps from time 0 to the end (each a point where the workload, the capacity
 *                   and the invariants were evaluated)
 * @param wallMillis how long the run took in wall time
 * @param scaleSteps each HPA's replica changes with what delayed them ({@link ScaleDelays}; same order as summaries)
 */
public record SimulationResult(Scenario scenario, List<TimelineRow> timeline, List<HpaSummary> summaries, Series demand,
                               List<Series> capacity, List<Series> replicas, List<RecordedEvent> events,
                               List<String> violations, long firstLoadIncreaseMillis, long steps, long wallMillis,
                               List<List<ScaleDelays.Step>> scaleSteps) {

    /** A change of an HPA's replica count: when, from, to, the reason from the timeline, and the decision in words. */
    public record ReplicaChange(long timeMillis, int from, int to, String reason, String decision) {
    }

    /** The replica changes of one HPA, in time order. */
    public List<ReplicaChange> replicaChanges(String hpa) {
        return replicaChanges(timeline, hpa, scenario.workload().replicas());
    }

    /** The replica changes of one HPA in a timeline, starting from {@code replicas}. */
    static List<ReplicaChange> replicaChanges(List<TimelineRow> timeline, String hpa, int replicas) {
        List<ReplicaChange> out = new ArrayList<>();
        int previous = replicas;
        for (TimelineRow r : timeline) {
            if (r.hpa().equals(hpa)) {
                if (r.replicas() != previous) {
                    out.add(new ReplicaChange(r.timeMillis(), previous, r.replicas(), r.reason(), r.trace().decision()));
                }
                previous = r.replicas();
            }
        }
        return out;
    }

    /** The scale steps of one HPA with what delayed each. */
    public List<ScaleDelays.Step> scaleStepsOf(String hpa) {
        for (int i = 0; i < summaries.size(); i++) {
            if (summaries.get(i).hpa().equals(hpa)) {
                return scaleSteps.get(i);
            }
        }
        return List.of();
    }

    /** The timeline rows of one HPA. */
    public List<TimelineRow> timelineOf(String hpa) {
        return timeline.stream().filter(r -> r.hpa().equals(hpa)).toList();
    }

    public long invariantViolations() {
        return summaries.stream().mapToLong(HpaSummary::invariantViolations).sum();
    }

    public long invariantChecks() {
        return summaries.stream().mapToLong(HpaSummary::invariantChecks).sum();
    }

    public long faultsInjected() {
        return summaries.stream().mapToLong(HpaSummary::faultsInjected).sum();
    }

    public long syncs() {
        return summaries.stream().mapToLong(HpaSummary::syncs).sum();
    }
}
