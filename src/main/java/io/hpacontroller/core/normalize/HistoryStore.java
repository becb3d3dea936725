package io.hpacontroller.core.normalize;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The histories of all HPAs, keyed "namespace/name". Dropped when the HPA is deleted. */
public final class HistoryStore {

    private final Map<String, HpaHistory> histories = new ConcurrentHashMap<>();

    /** The history of an HPA, created empty ("never seen") on first use. */
    public HpaHistory of(String key) {
        return histories.computeIfAbsent(key, k -> new HpaHistory());
    }

    /** What is remembered about an HPA, without creating a history for it. */
    public HpaHistory.Snapshot snapshot(String key) {
        HpaHistory h = histories.get(key);
        return h == null ? HpaHistory.Snapshot.NEVER_SEEN : h.snapshot();
    }

    /** Replaces an HPA's history with what a snapshot holds (e.g. the running controller's, for explain). */
    public void restore(String key, HpaHistory.Snapshot snapshot) {
        histories.put(key, HpaHistory.restore(snapshot));
    }

    /** Forgets an HPA. */
    public void forget(String key) {
        histories.remove(key);
    }

    public Set<String> keys() {
        return Set.copyOf(histories.keySet());
    }

    public int size() {
        return histories.size();
    }
}
