package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One metric, one replica proposal: upstream's {@code ReplicaCalculator}, on plain inputs.
 *
 * <p>Every method is pure: it takes the current replica count, the target (milli-units, or percent for
 * utilization), the tolerances, the pods and the metric samples that were fetched, and the time "now";
 * it returns a proposal or throws {@link CalculationException}. Fetching is the caller's business.
 */
public final class ReplicaCalculator {

    private final long cpuInitializationPeriodMillis;
    private final long initialReadinessDelayMillis;

    /**
     * @param cpuInitializationPeriodMillis {@code --horizontal-pod-autoscaler-cpu-initialization-period}
     * @param initialReadinessDelayMillis   {@code --horizontal-pod-autoscaler-initial-readiness-delay}
     */
    public ReplicaCalculator(long cpuInitializationPeriodMillis, long initialReadinessDelayMillis) {
        this.cpuInitializationPeriodMillis = cpuInitializationPeriodMillis;
        this.initialReadinessDelayMillis = initialReadinessDelayMillis;
    }

    /**
     * Resource or ContainerResource metric with a Utilization target (upstream {@code GetResourceReplicas}).
     *
     * @param currentReplicas   spec.replicas of the scale target
     * @param targetUtilization target in percent of request
     * @param resource          resource name, e.g. "cpu"
     * @param container         container name for ContainerResource, "" for Resource
     * @param pods              the pods the scale target's selector matches (distinct names)
     * @param fetched           the metric samples per pod, as fetched
     */
    public Proposal utilization(int currentReplicas, int targetUtilization, String resource, String container,
                                Tolerances tolerances, List<PodInfo> pods, Map<String, PodMetric> fetched,
                                long now) throws CalculationException {
        PodSamples s = groupPods(pods, fetched, resource, now);
        long[] requests = calculatePodRequests(pods, container, resource);
        UtilizationRatio ready = readyUtilizationRatio(s, requests, targetUtilization);
        return propose(currentReplicas, tolerances, s, ready.usageRatio(), ready.rawAverage(), ready.utilization(),
                (countMissing, missingAtFallback, countUnready) ->
                        rebalancedUtilization(s, requests, ready, targetUtilization, countMissing, missingAtFallback, countUnready));
    }

    /**
     * Upstream {@code groupPods} with the checks around it: the pods sorted into ready, unready, missing and
     * ignored against the fetched samples; an error when there is no pod, or no sample of a ready pod (or of a
     * pod not in the list) is left.
     */
    private PodSamples groupPods(List<PodInfo> pods, Map<String, PodMetric> fetched, String resource, long now)
            throws CalculationException {
        if (pods.isEmpty()) {
            throw new CalculationException("no pods returned by selector while calculating replica count");
        }
        Samples.requireNonNegative(fetched);
        PodSamples s = PodSamples.of(pods, fetched, resource, cpuInitializationPeriodMillis, initialReadinessDelayMillis, now);
        if (s.ready + s.strangers == 0) {
            throw new CalculationException("did not receive metrics for targeted pods (pods might be unready)");
        }
        return s;
    }

    /**
     * Upstream {@code calculatePodRequests}: every pod's request, ignored pods included (a pod without one fails
     * the metric, as upstream).
     */
    private static long[] calculatePodRequests(List<PodInfo> pods, String container, String resource) throws CalculationException {
        long[] requests = new long[pods.size()];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = Requests.of(pods.get(i), container, resource);
        }
        return requests;
    }

    /**
     * The ready pods' usage and requests summed, their utilization in percent, its ratio to the target and the
     * raw average usage per ready pod.
     */
    private record UtilizationRatio(long usage, long requested, int utilization, double usageRatio, long rawAverage) {
    }

    /**
     * Upstream {@code GetResourceUtilizationRatio} over the ready pods: the ratio of sums (samples of pods that are
     * not in the list have no request and are left out).
     */
    private static UtilizationRatio readyUtilizationRatio(PodSamples s, long[] requests, int targetUtilization)
            throws CalculationException {
        long usage = 0;
        long requested = 0;
        for (int i = 0; i < requests.length; i++) {
            if (s.group[i] == PodGroups.Group.READY) {
                usage = Arith.saturatedAdd(usage, s.value[i]);
                requested = Arith.saturatedAdd(requested, requests[i]);
            }
        }
        int utilization = utilizationPercent(usage, requested);
        return new UtilizationRatio(usage, requested, utilization, (double) utilization / (double) targetUtilization, usage / s.ready);
    }

    /**
     * Upstream's second {@code GetResourceUtilizationRatio}, once the missing and unready pods are filled in: pods
     * without metrics count as using 100% of their request (or the target, when the target is above 100%) on a
     * scale-down, nothing on a scale-up; unready pods count as using nothing.
     */
    private static Rebalanced rebalancedUtilization(PodSamples s, long[] requests, UtilizationRatio ready, int targetUtilization,
                                                    boolean countMissing, boolean missingAtFallback, boolean countUnready)
            throws CalculationException {
        long fallback = Math.max(100, targetUtilization);
        long u = ready.usage();
        long r = ready.requested();
        int counted = s.ready + s.strangers;
        for (int i = 0; i < requests.length; i++) {
            boolean missing = countMissing && s.group[i] == PodGroups.Group.MISSING;
            if (missing && missingAtFallback) {
                u = Arith.saturatedAdd(u, Arith.saturatedMultiply(requests[i], fallback) / 100);
            }
            if (missing || (countUnready && s.group[i] == PodGroups.Group.UNREADY)) {
                r = Arith.saturatedAdd(r, requests[i]);
                counted++;
            }
        }
        return new Rebalanced((double) utilizationPercent(u, r) / (double) targetUtilization, counted);
    }

    /**
     * A per-pod average value: a Resource or ContainerResource metric with an AverageValue target, or a
     * Pods metric (upstream {@code calcPlainMetricReplicas}).
     *
     * @param resource the resource name for Resource metrics (only "cpu" changes the pod grouping), "" for Pods metrics
     * @param pods     the pods the scale target's selector matches (distinct names)
     */
    public Proposal averageValue(int currentReplicas, long targetUsage, String resource, Tolerances tolerances,
                                      List<PodInfo> pods, Map<String, PodMetric> fetched, long now) throws CalculationException {
        PodSamples s = groupPods(pods, fetched, resource, now);
        int counted = s.ready + s.strangers;

        // the average over every sample left: the ready pods' and those of pods not in the list
        long readyTotal = Arith.saturatedAdd(s.readySum(), s.strangerSum);
        long usage = readyTotal / counted;
        double usageRatio = (double) usage / (double) targetUsage;
        return propose(currentReplicas, tolerances, s, usageRatio, usage, -1, (countMissing, missingAtFallback, countUnready) -> {
            // pods without metrics count as using exactly the target on a scale-down, nothing on a
            // scale-up; unready pods count as using nothing
            long total = readyTotal;
            int n = counted;
            if (countMissing) {
                for (int i = 0; i < s.missing; i++) {
                    if (missingAtFallback) {
                        total = Arith.saturatedAdd(total, targetUsage);
                    }
                    n++;
                }
            }
            if (countUnready) {
                n += s.unready;
            }
            return new Rebalanced((double) (total / n) / (double) targetUsage, n);
        });
    }

    /**
     * An Object metric with a Value target, or an External metric with a Value target (whose samples
     * the caller has summed with {@link #sum}). At 0 replicas neither the tolerance nor the ready pods
     * count: the proposal is {@code ceil(usage / target)}, which is how a workload wakes from zero.
     *
     * @param readyPods supplies the pods, only asked for when the ready pod count is needed
     */
    public Proposal value(int currentReplicas, long targetUsage, long usage, Tolerances tolerances,
                          Supplier<List<PodInfo>> readyPods) throws CalculationException {
        Samples.requireNonNegative(usage, "the metric value");
        double usageRatio = (double) usage / (double) targetUsage;
        if (currentReplicas == 0) {
            int replicas = Arith.ceilToReplicas(usageRatio);
            return new Proposal(replicas, usageRatio, replicas, null, null, null, usage, -1);
        }
        ToleranceVerdict verdict = tolerances.verdict(usageRatio);
        if (verdict.within()) {
            return new Proposal(currentReplicas, usageRatio, -1, null, null, verdict, usage, -1);
        }
        List<PodInfo> pods = readyPods.get();
        if (pods.isEmpty()) {
            throw new CalculationException("unable to calculate ready pods: no pods returned by selector while calculating replica count");
        }
        long ready = pods.stream().filter(PodInfo::isRunningAndReady).count();
        int replicas = Arith.ceilToReplicas(usageRatio * ready);
        return new Proposal(replicas, usageRatio, replicas, null, null, verdict, usage, -1);
    }

    /**
     * An Object or External metric with an AverageValue target: the total divided over
     * {@code status.replicas} (upstream {@code GetObjectPerPodMetricReplicas} and
     * {@code GetExternalPerPodMetricReplicas}).
     */
    public Proposal averageOverReplicas(int statusReplicas, long targetAveragePerPod, long total, Tolerances tolerances)
            throws CalculationException {
        Samples.requireNonNegative(total, "the metric value");
        int replicas = statusReplicas;
        double usageRatio = (double) total / ((double) targetAveragePerPod * statusReplicas);
        int raw = Arith.ceilToReplicas((double) total / (double) targetAveragePerPod);
        ToleranceVerdict verdict = tolerances.verdict(usageRatio);
        if (!verdict.within()) {
            replicas = raw;
        }
        return new Proposal(replicas, usageRatio, raw, null, null, verdict, averagePerReplica(total, statusReplicas), -1);
    }

    /**
     * The per-pod average an AverageValue status reports: the total over status.replicas, rounded up. With no
     * replica there is no average: 0, as upstream reports (not a division by zero).
     */
    private static long averagePerReplica(long total, int statusReplicas) {
        if (statusReplicas == 0) {
            return 0;
        }
        return (double) total >= (double) Long.MAX_VALUE ? Long.MAX_VALUE : Arith.ceilToLong((double) total / (double) statusReplicas);
    }

    /**
     * The sum of an External metric's values, capped at the largest long instead of overflowing.
     *
     * @throws CalculationException when a value is negative (see {@link Samples})
     */
    public static long sum(List<Long> values) throws CalculationException {
        long total = 0;
        for (long v : values) {
            Samples.requireNonNegative(v, "an external metric value");
            total = Arith.saturatedAdd(total, v);
        }
        return total;
    }

    /**
     * A proposal from a usage ratio over {@code pods} pods without looking at the pods themselves: upstream's
     * rule {@code ceil(ratio x pods)}, or the current count inside the tolerance. Predictive scaling turns a
     * forecast load into a proposal through this rule (the usage ratio the forecast would give with the pods
     * the metric is measured over now).
     */
    public static Proposal fromUsageRatio(int currentReplicas, double usageRatio, int pods, Tolerances tolerances) {
        ToleranceVerdict verdict = tolerances.verdict(usageRatio);
        int raw = Arith.ceilToReplicas(usageRatio * pods);
        return new Proposal(verdict.within() ? currentReplicas : raw, usageRatio, raw, null, null, verdict, -1, -1);
    }

    /** The usage ratio once missing and unready pods are counted in, and over how many pods. */
    private record Rebalanced(double ratio, int counted) {
    }

    /** Recomputes the usage ratio with the missing and unready pods counted as the flags say. */
    private interface Rebalance {
        Rebalanced apply(boolean countMissing, boolean missingAtFallback, boolean countUnready) throws CalculationException;
    }

    /**
     * Upstream's proposal from a per-pod usage ratio, shared by utilization and plain per-pod values:
     * with no unready pod on a scale-up and no pod without metrics, {@code ceil(ratio x ready)} unless
     * within the tolerance. Otherwise the ratio is recomputed with the pods without metrics (at the
     * fallback on a scale-down, at zero on a scale-up) and, on a scale-up, the unready pods (at zero);
     * no change when the new ratio is within the tolerance, flips the direction, or the new count does.
     */
    private static Proposal propose(int currentReplicas, Tolerances tolerances, PodSamples s, double usageRatio, long usage,
                                    int utilization, Rebalance rebalance) throws CalculationException {
        PodCounts pods = s.counts();
        int raw = Arith.ceilToReplicas(usageRatio * s.ready);
        boolean scaleUpWithUnready = s.unready > 0 && usageRatio > 1.0;
        if (!scaleUpWithUnready && s.missing == 0) {
            ToleranceVerdict verdict = tolerances.verdict(usageRatio);
            return new Proposal(verdict.within() ? currentReplicas : raw, usageRatio, raw, pods, null, verdict, usage, utilization);
        }
        Rebalanced r = rebalance.apply(s.missing > 0 && usageRatio != 1.0, usageRatio < 1.0, scaleUpWithUnready);
        ToleranceVerdict verdict = tolerances.verdict(r.ratio());
        int newReplicas = Arith.ceilToReplicas(r.ratio() * r.counted());
        String held = null;
        if (verdict.within()) {
            held = Rebalancing.WITHIN_TOLERANCE;
        } else if (changesDirection(usageRatio, r.ratio())) {
            held = Rebalancing.DIRECTION_CHANGED;
        } else if ((r.ratio() < 1.0 && newReplicas > currentReplicas) || (r.ratio() > 1.0 && newReplicas < currentReplicas)) {
            held = Rebalancing.AGAINST_RATIO;
        }
        return new Proposal(held == null ? newReplicas : currentReplicas, usageRatio, raw, pods,
                new Rebalancing(r.ratio(), r.counted(), newReplicas, held), verdict, usage, utilization);
    }

    private static boolean changesDirection(double before, double after) {
        return (before < 1.0 && after > 1.0) || (before > 1.0 && after < 1.0);
    }

    /**
     * Usage as a whole percentage of the requests, truncated like upstream's integer division, clamped to
     * the int range instead of wrapping.
     */
    private static int utilizationPercent(long usage, long requested) throws CalculationException {
        if (requested == 0) {
            throw new CalculationException("no metrics returned matched known pods");
        }
        long percent;
        if (Math.abs(usage) <= Long.MAX_VALUE / 100) {
            percent = usage * 100 / requested;
        } else {
            percent = BigInteger.valueOf(usage).multiply(BigInteger.valueOf(100)).divide(BigInteger.valueOf(requested))
                    .min(BigInteger.valueOf(Integer.MAX_VALUE)).max(BigInteger.valueOf(Integer.MIN_VALUE)).longValue();
        }
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, percent));
    }
}
