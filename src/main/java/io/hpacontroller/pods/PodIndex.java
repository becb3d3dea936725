package io.hpacontroller.pods;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.PodSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * The pod cache, plugged into the Pod informer as its item store: every Pod the informer lists or
 * watches is compacted on arrival and indexed by namespace and by each {@code label=value}.
 *
 * <p>Selecting the pods of an HPA's target looks up the smallest posting list among the selector's
 * {@code key=value} requirements and filters it with the full selector, so a reconcile never scans a
 * namespace and never calls the API. What the informer gets back from {@link #get}/{@link #values}
 * are shells with name, namespace, labels and resourceVersion: enough for its bookkeeping.
 *
 * <p>An update replaces a pod in several posting lists; a list taken meanwhile must see the pod once,
 * old or new, never twice or not at all. The indexes are therefore read under a read lock and changed
 * under the write lock: reconciles list concurrently, the informer's thread waits for them only for
 * the few microseconds one list takes ({@code PodIndexBenchmark}).
 */
public final class PodIndex implements ItemStore<PodFields>, PodSource {

    private final PodCompactor compactor = new PodCompactor();
    private final Map<String, CachedPod> byKey = new ConcurrentHashMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Lock reading = lock.readLock();
    private final Lock writing = lock.writeLock();
    /** Guarded by {@link #lock}, as are the sets in it. */
    private final Map<String, Set<CachedPod>> byNamespace = new HashMap<>();
    /** Guarded by {@link #lock}, as are the maps and sets in it. */
    private final Map<String, Map<String, Set<CachedPod>>> byLabel = new HashMap<>();

    @Override
    public String getKey(PodFields pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    @Override
    public PodFields put(String key, PodFields pod) {
        CachedPod previous;
        writing.lock();
        try {
            CachedPod next = compactor.compact(pod);
            previous = byKey.put(key, next);
            if (previous != null) {
                unindex(previous);
                compactor.release(previous);
            }
            index(next);
        } finally {
            writing.unlock();
        }
        return previous == null ? null : shell(previous);
    }

    @Override
    public PodFields remove(String key) {
        CachedPod previous;
        writing.lock();
        try {
            previous = byKey.remove(key);
            if (previous == null) {
                return null;
            }
            unindex(previous);
            compactor.release(previous);
        } finally {
            writing.unlock();
        }
        return shell(previous);
    }

    @Override
    public Stream<String> keySet() {
        return byKey.keySet().stream();
    }

    @Override
    public Stream<PodFields> values() {
        return byKey.values().stream().map(PodIndex::shell);
    }

    @Override
    public int size() {
        return byKey.size();
    }

    @Override
    public PodFields get(String key) {
        CachedPod p = byKey.get(key);
        return p == null ? null : shell(p);
    }

    private void index(CachedPod p) {
        byNamespace.computeIfAbsent(p.namespace(), n -> new HashSet<>()).add(p);
        Map<String, Set<CachedPod>> labels = byLabel.computeIfAbsent(p.namespace(), n -> new HashMap<>());
        Labels l = p.info().labels();
        for (int i = 0; i < l.size(); i++) {
            labels.computeIfAbsent(posting(l.key(i), l.value(i)), k -> new HashSet<>()).add(p);
        }
    }

    private void unindex(CachedPod p) {
        Set<CachedPod> ns = byNamespace.get(p.namespace());
        if (ns != null) {
            ns.remove(p);
        }
        Map<String, Set<CachedPod>> labels = byLabel.get(p.namespace());
        if (labels != null) {
            Labels l = p.info().labels();
            for (int i = 0; i < l.size(); i++) {
                String k = posting(l.key(i), l.value(i));
                Set<CachedPod> set = labels.get(k);
                if (set != null) {
                    set.remove(p);
                    if (set.isEmpty()) {
                        labels.remove(k, set);
                    }
                }
            }
        }
    }

    /** Distinct container lists the cached pods share (for tests). */
    int sharedContainerLists() {
        writing.lock();
        try {
            return compactor.sharedContainerLists();
        } finally {
            writing.unlock();
        }
    }

    private static String posting(String key, String value) {
        return key + "=" + value;
    }

    /** The pods of the namespace the selector matches, as they were at one moment. */
    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        if (selector.isNothing()) {
            return List.of();
        }
        List<PodInfo> out = new ArrayList<>();
        reading.lock();
        try {
            Set<CachedPod> candidates = byNamespace.getOrDefault(namespace, Collections.emptySet());
            Map<String, Set<CachedPod>> labels = byLabel.getOrDefault(namespace, Map.of());
            for (Map.Entry<String, String> required : selector.requiredLabels().entrySet()) {
                Set<CachedPod> posting = labels.getOrDefault(posting(required.getKey(), required.getValue()), Collections.emptySet());
                if (posting.size() < candidates.size()) {
                    candidates = posting;
                }
            }
            for (CachedPod p : candidates) {
                if (selector.matches(p.info().labels()::get)) {
                    out.add(p.info());
                }
            }
        } finally {
            reading.unlock();
        }
        return out;
    }

    private static PodFields shell(CachedPod p) {
        return new PodFields(new ObjectMetaBuilder().withName(p.info().name()).withNamespace(p.namespace())
                .withResourceVersion(p.resourceVersion()).withLabels(p.info().labels().asMap()).build(), null, null);
    }
}
