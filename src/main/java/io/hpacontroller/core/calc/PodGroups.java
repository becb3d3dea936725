package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pods behind a per-pod metric sorted into upstream's groups:
 * <ul>
 *   <li>ignored: being deleted, or Failed;</li>
 *   <li>unready: Pending; and, for CPU only, pods still initializing (no Ready condition or no start time;
 *       inside the CPU initialization period: not ready, or a sample that does not yet cover a full window
 *       since the last Ready transition; after it: not ready and never ready since start);</li>
 *   <li>missing: no metric sample;</li>
 *   <li>ready: the rest.</li>
 * </ul>
 *
 * @param readyCount number of ready pods with metrics
 * @param unready    names of unready pods
 * @param missing    names of pods without metrics
 * @param ignored    names of ignored pods
 */
public record PodGroups(int readyCount, Set<String> unready, Set<String> missing, Set<String> ignored) {

    /** The group of one pod. */
    enum Group { READY, UNREADY, MISSING, IGNORED }

    /**
     * Groups the pods.
     *
     * @param resource the resource name for Resource/ContainerResource metrics, empty for others;
     *                 only "cpu" triggers the initialization rules
     */
    public static PodGroups of(List<PodInfo> pods, Map<String, PodMetric> metrics, String resource,
                               long cpuInitializationPeriodMillis, long initialReadinessDelayMillis, long now) {
        Set<String> unready = new HashSet<>();
        Set<String> missing = new HashSet<>();
        Set<String> ignored = new HashSet<>();
        int ready = 0;
        boolean cpu = "cpu".equals(resource);
        for (PodInfo pod : pods) {
            switch (classify(pod, metrics.get(pod.name()), cpu, cpuInitializationPeriodMillis, initialReadinessDelayMillis, now)) {
                case IGNORED -> ignored.add(pod.name());
                case UNREADY -> unready.add(pod.name());
                case MISSING -> missing.add(pod.name());
                case READY -> ready++;
            }
        }
        return new PodGroups(ready, unready, missing, ignored);
    }

    /**
     * The group of one pod, given its sample (null when it has none): the rule itself.
     *
     * @param cpu whether the metric is the cpu resource (only then do the initialization rules apply)
     */
    static Group classify(PodInfo pod, PodMetric metric, boolean cpu, long cpuInitPeriod, long readinessDelay, long now) {
        if (pod.deleting() || pod.phase() == PodPhase.FAILED) {
            return Group.IGNORED;
        }
        if (pod.phase() == PodPhase.PENDING) {
            return Group.UNREADY;
        }
        if (metric == null) {
            return Group.MISSING;
        }
        if (cpu && isCpuUnready(pod, metric, cpuInitPeriod, readinessDelay, now)) {
            return Group.UNREADY;
        }
        return Group.READY;
    }

    private static boolean isCpuUnready(PodInfo pod, PodMetric metric, long cpuInitPeriod, long readinessDelay, long now) {
        if (pod.ready() == ReadyStatus.NONE || pod.startTime() == PodInfo.NO_TIME) {
            return true;
        }
        long transition = pod.readyTransitionTime();
        // times from the API may be anything (a clock in the future, year 9999): the sums saturate rather than wrap
        if (Arith.saturatedAdd(pod.startTime(), cpuInitPeriod) > now) {
            // still inside the initialization period: drop a sample that does not cover a whole window
            // since the last Ready transition, and drop unready pods
            return pod.ready() == ReadyStatus.FALSE || metric.timestamp() < Arith.saturatedAdd(transition, metric.window());
        }
        // after the initialization period: drop only pods that are unready and have never been ready
        return pod.ready() == ReadyStatus.FALSE && Arith.saturatedAdd(pod.startTime(), readinessDelay) > transition;
    }
}
