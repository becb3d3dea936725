package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;


/**
 * Upstream's groups of the pods behind a per-pod metric (the rule; {@link PodSamples} applies it to a
 * pod list):
 * <ul>
 *   <li>ignored: being deleted, or Failed;</li>
 *   <li>unready: Pending; and, for CPU only, pods still initializing (no Ready condition or no start time;
 *       inside the CPU initialization period: not ready, or a sample that does not yet cover a full window
 *       since the last Ready transition; after it: not ready and never ready since start);</li>
 *   <li>missing: no metric sample;</li>
 *   <li>ready: the rest.</li>
 * </ul>
 */
final class PodGroups {

    /** The group of one pod. */
    enum Group { READY, UNREADY, MISSING, IGNORED }

    private PodGroups() {
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
