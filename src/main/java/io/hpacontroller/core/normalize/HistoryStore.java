package io.hpacontroller.core.normalize;

import io.hpacontroller.core.HpaKey;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the controller remembers of each HPA, keyed by its {@link HpaKey}: its {@link HpaHistory} (the normalization's),
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

    private final Map<HpaKey, Memory> memories = new ConcurrentHashMap<>();

    private Memory memory(HpaKey key) {
        return memories.computeIfAbsent(key, k -> Memory.neverSeen());
    }

    /** The history of an HPA, created empty ("never seen") on first use. */
    public HpaHistory of(HpaKey key) {
        return memory(key).history();
    }

    /** The metrics of an HPA failing since some sync (created empty on first use). */
    public MetricFailures metricFailures(HpaKey key) {
        return memory(key).metricFailures();
    }

    /** What the predictive scaler learned of an HPA's load (created empty on first use). */
    public LearnedLoad learnedLoad(HpaKey key) {
        return memory(key).learnedLoad();
    }

    /** What is remembered about an HPA, without creating a history for it. */
    public HistorySnapshot snapshot(HpaKey key) {
        Memory m = memories.get(key);
        return m == null ? HistorySnapshot.NEVER_SEEN : snapshotWith(key, m.history());
    }

    /** What is remembered about an HPA with {@code history} in the place of its own (a planned change, not recorded yet). */
    public HistorySnapshot snapshotWith(HpaKey key, HpaHistory history) {
        Memory m = memory(key);
        return HistorySnapshot.of(history, m.metricFailures().all(), m.learnedLoad().encoded());
    }

    /** Replaces what is remembered about an HPA with what a snapshot holds (e.g. the running controller's, for explain). */
    public void restore(HpaKey key, HistorySnapshot snapshot) {
        MetricFailures failures = new MetricFailures();
        snapshot.metricFailures().forEach(failures::addMetricFailure);
        memories.put(key, new Memory(snapshot.history(), failures, new LearnedLoad(snapshot.learnedLoad())));
    }

    /** Forgets an HPA. */
    public void forget(HpaKey key) {
        memories.remove(key);
    }

    public Set<HpaKey> keys() {
        return Set.copyOf(memories.keySet());
    }

    public int size() {
        return memories.size();
    }
}
