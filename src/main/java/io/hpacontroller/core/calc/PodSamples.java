package io.hpacontroller.core.calc;

import io.hpacontroller.core.calc.PodGroups.Group;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;

import java.util.List;
import java.util.Map;

/**
 * The pods behind a per-pod metric, each with its {@link PodGroups group} and sample, held in arrays
 * indexed like the pod list: the calculator's hot path runs once per metric per sync over every pod,
 * so it allocates a few arrays rather than maps and sets of names.
 *
 * <p>Samples for pods that are not in the list ("strangers") count as upstream counts them: in the
 * emptiness check and in plain averages, not in utilization (they have no request). Pod names must be
 * distinct, as they are in a namespace; a list naming a pod twice is refused.
 */
final class PodSamples {

    final List<PodInfo> pods;
    final Group[] group;
    /** The sample of each pod that has one (0 for the others). */
    final long[] value;
    int ready;
    int unready;
    int missing;
    /** Number of samples for pods that are not in the list. */
    final int strangers;
    /** Their saturated sum; only computed when there are strangers. */
    final long strangerSum;

    private final int[] slots;  // open addressing over the pod names: index + 1, 0 for an empty slot
    private final int shift;

    private PodSamples(List<PodInfo> pods, Map<String, PodMetric> fetched, String resource, long cpuInitPeriod,
                       long readinessDelay, long now) throws CalculationException {
        this.pods = pods;
        int n = pods.size();
        group = new Group[n];
        value = new long[n];
        int bits = Math.max(1, 33 - Integer.numberOfLeadingZeros(Math.max(1, n)));  // at least twice as many slots as pods
        slots = new int[1 << bits];
        shift = 32 - bits;
        boolean cpu = "cpu".equals(resource);
        int matched = 0;
        for (int i = 0; i < n; i++) {
            PodInfo pod = pods.get(i);
            index(pod.name(), i);
            PodMetric metric = fetched.get(pod.name());
            if (metric != null) {
                matched++;
                value[i] = metric.value();
            }
            Group g = PodGroups.classify(pod, metric, cpu, cpuInitPeriod, readinessDelay, now);
            group[i] = g;
            switch (g) {
                case READY -> ready++;
                case UNREADY -> unready++;
                case MISSING -> missing++;
                default -> { }
            }
        }
        strangers = fetched.size() - matched;
        long sum = 0;
        if (strangers > 0) {
            for (Map.Entry<String, PodMetric> e : fetched.entrySet()) {
                if (indexOf(e.getKey()) < 0) {
                    sum = Arith.saturatedAdd(sum, e.getValue().value());
                }
            }
        }
        strangerSum = sum;
    }

    /**
     * Sorts the pods and their samples.
     *
     * @param resource the resource name for Resource/ContainerResource metrics, empty for others
     * @throws CalculationException when the list names a pod twice
     */
    static PodSamples of(List<PodInfo> pods, Map<String, PodMetric> fetched, String resource, long cpuInitPeriod,
                         long readinessDelay, long now) throws CalculationException {
        return new PodSamples(pods, fetched, resource, cpuInitPeriod, readinessDelay, now);
    }

    private void index(String name, int i) throws CalculationException {
        int mask = slots.length - 1;
        int s = slot(name);
        while (slots[s] != 0) {
            if (pods.get(slots[s] - 1).name().equals(name)) {
                throw new CalculationException("the pod list names pod " + name + " twice: refusing to compute a replica count from it");
            }
            s = (s + 1) & mask;
        }
        slots[s] = i + 1;
    }

    private int indexOf(String name) {
        int mask = slots.length - 1;
        for (int s = slot(name); slots[s] != 0; s = (s + 1) & mask) {
            if (pods.get(slots[s] - 1).name().equals(name)) {
                return slots[s] - 1;
            }
        }
        return -1;
    }

    /** Fibonacci hashing: pod names of one workload differ in their last characters, so their hash codes are close. */
    private int slot(String name) {
        return (name.hashCode() * 0x9E3779B9) >>> shift;
    }

    /** The number of pods in each group. */
    PodCounts counts() {
        return new PodCounts(ready, unready, missing, group.length - ready - unready - missing, strangers);
    }

    /** Saturated sum of the samples of the ready pods. */
    long readySum() {
        long sum = 0;
        for (int i = 0; i < value.length; i++) {
            if (group[i] == Group.READY) {
                sum = Arith.saturatedAdd(sum, value[i]);
            }
        }
        return sum;
    }
}
