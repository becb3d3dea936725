package io.hpacontroller.core.normalize;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the controller remembers of each HPA, keyed "namespace/name": its {@link HpaHistory} (the normalization's),
 * its {@link MetricFailures} (the fallback control's) and its {@link LearnedLoad} (the predictive scaler's), each
 * in a holder of its own; {@link HistorySnapshot} is all three as one value. Dropped when the HPA is deleted.
 */
public final class HistoryStore {

    /** One HPA's holders. */
    private record Memory(HpaHistory history, MetricFailures metricFailures, LearnedLoad learnedLoad) {
        static Memory neverSeen() {
            return new Memory(new HpaHistory(), new MetricFailures(), new LearnedLoad(null));
        }
    }

    private final Map<String, Memory> memories = new ConcurrentHashMap<>();

    private Memory memory(String key) {
        return memories.computeIfAbsent(key, k -> Memory.neverSeen());
    }

    /** The history of an HPA, created empty ("never seen") on first use. */
    public HpaHistory of(String key) {
        return memory(key).history();
    }

    /** The metrics of an HPA failing since some sync (created empty on first use). */
    public MetricFailures metricFailures(String key) {
        return memory(key).metricFailures();
    }

    /** What the predictive scaler learned of an HPA's load (created empty on first use). */
    public LearnedLoad learnedLoad(String key) {
        return memory(key).learnedLoad();
    }

    /** What is remembered about an HPA, without creating a history for it. */
    public HistorySnapshot snapshot(String key) {
        Memory m = memories.get(key);
        return m == null ? HistorySnapshot.NEVER_SEEN : snapshotWith(key, m.history());
    }

    /** What is remembered about an HPA with {@code history} in the place of its own (a planned change, not recorded yet). */
    public HistorySnapshot snapshotWith(String key, HpaHistory history) {
        Memory m = memory(key);
        return HistorySnapshot.of(history, m.metricFailures().all(), m.learnedLoad().encoded());
    }

    /** Replaces what is remembered about an HPA with what a snapshot holds (e.g. the running controller's, for explain). */
    public void restore(String key, HistorySnapshot snapshot) {
        MetricFailures failures = new MetricFailures();
        snapshot.metricFailures().forEach(failures::addMetricFailure);
        memories.put(key, new Memory(snapshot.history(), failures, new LearnedLoad(snapshot.learnedLoad())));
    }

    /** Forgets an HPA. */
    public void forget(String key) {
        memories.remove(key);
    }

    public Set<String> keys() {
        return Set.copyOf(memories.keySet());
    }

    public int size() {
        return memories.size();
    }
}
