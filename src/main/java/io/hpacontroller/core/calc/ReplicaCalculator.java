package io.hpacontroller.core.calc;

import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;

import java.math.BigInteger;
import java.util.HashMap;
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

    /** A Utilization proposal: the replicas, the utilization in percent of request and the average raw value. */
    public record UtilizationProposal(int replicas, int utilization, long rawAverage) {
    }

    /** A proposal for a value metric: the replicas and the usage to report in the status. */
    public record UsageProposal(int replicas, long usage) {
    }

    /**
     * Resource or ContainerResource metric with a Utilization target (upstream {@code GetResourceReplicas}).
     *
     * @param currentReplicas   spec.replicas of the scale target
     * @param targetUtilization target in percent of request
     * @param resource          resource name, e.g. "cpu"
     * @param container         container name for ContainerResource, "" for Resource
     * @param pods              the pods the scale target's selector matches
     * @param fetched           the metric samples per pod, as fetched
     */
    public UtilizationProposal utilization(int currentReplicas, int targetUtilization, String resource, String container,
                                           Tolerances tolerances, List<PodInfo> pods, Map<String, PodMetric> fetched,
                                           long now) throws CalculationException {
        if (pods.isEmpty()) {
            throw new CalculationException("no pods returned by selector while calculating replica count");
        }
        Samples.requireNonNegative(fetched);
        Map<String, PodMetric> metrics = new HashMap<>(fetched);
        PodGroups groups = PodGroups.of(pods, metrics, resource, cpuInitializationPeriodMillis, initialReadinessDelayMillis, now);
        metrics.keySet().removeAll(groups.ignored());
        metrics.keySet().removeAll(groups.unready());
        if (metrics.isEmpty()) {
            throw new CalculationException("did not receive metrics for targeted pods (pods might be unready)");
        }
        Map<String, Long> requests = Requests.of(pods, container, resource);

        UtilizationRatio first = UtilizationRatio.of(metrics, requests, targetUtilization);
        double usageRatio = first.ratio;
        boolean scaleUpWithUnready = !groups.unready().isEmpty() && usageRatio > 1.0;
        if (!scaleUpWithUnready && groups.missing().isEmpty()) {
            if (tolerances.isWithin(usageRatio)) {
                return new UtilizationProposal(currentReplicas, first.utilization, first.rawAverage);
            }
            return new UtilizationProposal(Arith.ceilToReplicas(usageRatio * groups.readyCount()), first.utilization, first.rawAverage);
        }

        if (!groups.missing().isEmpty()) {
            if (usageRatio < 1.0) {
                // on a scale-down, pods without metrics count as using 100% of their request
                // (or the target, when the target is above 100%)
                long fallback = Math.max(100, targetUtilization);
                for (String pod : groups.missing()) {
                    long request = requests.get(pod);
                    metrics.put(pod, new PodMetric(Arith.saturatedMultiply(request, fallback) / 100, 0, 0));
                }
            } else if (usageRatio > 1.0) {
                // on a scale-up, pods without metrics count as using nothing
                for (String pod : groups.missing()) {
                    metrics.put(pod, new PodMetric(0, 0, 0));
                }
            }
        }
        if (scaleUpWithUnready) {
            // on a scale-up, unready pods count as using nothing
            for (String pod : groups.unready()) {
                metrics.put(pod, new PodMetric(0, 0, 0));
            }
        }

        double newUsageRatio = UtilizationRatio.of(metrics, requests, targetUtilization).ratio;
        if (tolerances.isWithin(newUsageRatio) || changesDirection(usageRatio, newUsageRatio)) {
            return new UtilizationProposal(currentReplicas, first.utilization, first.rawAverage);
        }
        int newReplicas = Arith.ceilToReplicas(newUsageRatio * metrics.size());
        if ((newUsageRatio < 1.0 && newReplicas > currentReplicas) || (newUsageRatio > 1.0 && newReplicas < currentReplicas)) {
            return new UtilizationProposal(currentReplicas, first.utilization, first.rawAverage);
        }
        return new UtilizationProposal(newReplicas, first.utilization, first.rawAverage);
    }

    /**
     * A per-pod average value: a Resource or ContainerResource metric with an AverageValue target, or a
     * Pods metric (upstream {@code calcPlainMetricReplicas}).
     *
     * @param resource the resource name for Resource metrics (only "cpu" changes the pod grouping), "" for Pods metrics
     */
    public UsageProposal averageValue(int currentReplicas, long targetUsage, String resource, Tolerances tolerances,
                                      List<PodInfo> pods, Map<String, PodMetric> fetched, long now) throws CalculationException {
        if (pods.isEmpty()) {
            throw new CalculationException("no pods returned by selector while calculating replica count");
        }
        Samples.requireNonNegative(fetched);
        Map<String, PodMetric> metrics = new HashMap<>(fetched);
        PodGroups groups = PodGroups.of(pods, metrics, resource, cpuInitializationPeriodMillis, initialReadinessDelayMillis, now);
        metrics.keySet().removeAll(groups.ignored());
        metrics.keySet().removeAll(groups.unready());
        if (metrics.isEmpty()) {
            throw new CalculationException("did not receive metrics for targeted pods (pods might be unready)");
        }

        long usage = averageOf(metrics);
        double usageRatio = (double) usage / (double) targetUsage;
        boolean scaleUpWithUnready = !groups.unready().isEmpty() && usageRatio > 1.0;
        if (!scaleUpWithUnready && groups.missing().isEmpty()) {
            if (tolerances.isWithin(usageRatio)) {
                return new UsageProposal(currentReplicas, usage);
            }
            return new UsageProposal(Arith.ceilToReplicas(usageRatio * groups.readyCount()), usage);
        }

        if (!groups.missing().isEmpty()) {
            if (usageRatio < 1.0) {
                // on a scale-down, pods without metrics count as using exactly the target
                for (String pod : groups.missing()) {
                    metrics.put(pod, new PodMetric(targetUsage, 0, 0));
                }
            } else if (usageRatio > 1.0) {
                for (String pod : groups.missing()) {
                    metrics.put(pod, new PodMetric(0, 0, 0));
                }
            }
        }
        if (scaleUpWithUnready) {
            for (String pod : groups.unready()) {
                metrics.put(pod, new PodMetric(0, 0, 0));
            }
        }

        double newUsageRatio = (double) averageOf(metrics) / (double) targetUsage;
        if (tolerances.isWithin(newUsageRatio) || changesDirection(usageRatio, newUsageRatio)) {
            return new UsageProposal(currentReplicas, usage);
        }
        int newReplicas = Arith.ceilToReplicas(newUsageRatio * metrics.size());
        if ((newUsageRatio < 1.0 && newReplicas > currentReplicas) || (newUsageRatio > 1.0 && newReplicas < currentReplicas)) {
            return new UsageProposal(currentReplicas, usage);
        }
        return new UsageProposal(newReplicas, usage);
    }

    /**
     * An Object metric with a Value target, or an External metric with a Value target (whose samples
     * the caller has summed with {@link #sum}). At 0 replicas neither the tolerance nor the ready pods
     * count: the proposal is {@code ceil(usage / target)}, which is how a workload wakes from zero.
     *
     * @param readyPods supplies the pods, only asked for when the ready pod count is needed
     */
    public UsageProposal value(int currentReplicas, long targetUsage, long usage, Tolerances tolerances,
                               Supplier<List<PodInfo>> readyPods) throws CalculationException {
        Samples.requireNonNegative(usage, "the metric value");
        double usageRatio = (double) usage / (double) targetUsage;
        if (currentReplicas == 0) {
            return new UsageProposal(Arith.ceilToReplicas(usageRatio), usage);
        }
        if (tolerances.isWithin(usageRatio)) {
            return new UsageProposal(currentReplicas, usage);
        }
        List<PodInfo> pods = readyPods.get();
        if (pods.isEmpty()) {
            throw new CalculationException("unable to calculate ready pods: no pods returned by selector while calculating replica count");
        }
        long ready = pods.stream().filter(PodInfo::isRunningAndReady).count();
        return new UsageProposal(Arith.ceilToReplicas(usageRatio * ready), usage);
    }

    /**
     * An Object or External metric with an AverageValue target: the total divided over
     * {@code status.replicas} (upstream {@code GetObjectPerPodMetricReplicas} and
     * {@code GetExternalPerPodMetricReplicas}).
     */
    public UsageProposal averageOverReplicas(int statusReplicas, long targetAveragePerPod, long total, Tolerances tolerances)
            throws CalculationException {
        Samples.requireNonNegative(total, "the metric value");
        int replicas = statusReplicas;
        double usageRatio = (double) total / ((double) targetAveragePerPod * statusReplicas);
        if (!tolerances.isWithin(usageRatio)) {
            replicas = Arith.ceilToReplicas((double) total / (double) targetAveragePerPod);
        }
        long average = (double) total >= (double) Long.MAX_VALUE ? Long.MAX_VALUE : Arith.ceilToLong((double) total / (double) statusReplicas);
        return new UsageProposal(replicas, average);
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

    private static boolean changesDirection(double before, double after) {
        return (before < 1.0 && after > 1.0) || (before > 1.0 && after < 1.0);
    }

    private static long averageOf(Map<String, PodMetric> metrics) {
        long total = 0;
        for (PodMetric m : metrics.values()) {
            total = Arith.saturatedAdd(total, m.value());
        }
        return total / metrics.size();
    }

    /** Upstream {@code GetResourceUtilizationRatio}: ratio of sums, utilization truncated to whole percent. */
    private record UtilizationRatio(double ratio, int utilization, long rawAverage) {
        static UtilizationRatio of(Map<String, PodMetric> metrics, Map<String, Long> requests, int target) throws CalculationException {
            long metricsTotal = 0;
            long requestsTotal = 0;
            int entries = 0;
            for (Map.Entry<String, PodMetric> e : metrics.entrySet()) {
                Long request = requests.get(e.getKey());
                if (request == null) {
                    continue; // a metric for a pod we do not know: ignored
                }
                metricsTotal = Arith.saturatedAdd(metricsTotal, e.getValue().value());
                requestsTotal = Arith.saturatedAdd(requestsTotal, request);
                entries++;
            }
            if (requestsTotal == 0) {
                throw new CalculationException("no metrics returned matched known pods");
            }
            long percent;
            if (Math.abs(metricsTotal) <= Long.MAX_VALUE / 100) {
                percent = metricsTotal * 100 / requestsTotal;
            } else {
                percent = BigInteger.valueOf(metricsTotal).multiply(BigInteger.valueOf(100)).divide(BigInteger.valueOf(requestsTotal))
                        .min(BigInteger.valueOf(Integer.MAX_VALUE)).max(BigInteger.valueOf(Integer.MIN_VALUE)).longValue();
            }
            int utilization = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, percent));
            return new UtilizationRatio((double) utilization / (double) target, utilization, metricsTotal / entries);
        }
    }
}
