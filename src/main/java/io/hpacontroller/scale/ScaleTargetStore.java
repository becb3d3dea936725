package io.hpacontroller.scale;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.hpacontroller.core.model.ScaleTarget;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * An informer's item store for one workload kind (Deployment, StatefulSet, ReplicaSet,
 * ReplicationController) that keeps only what the scale subresource would say about each object:
 * spec.replicas, status.replicas, the selector and the resourceVersion.
 */
final class ScaleTargetStore<T extends HasMetadata> implements ItemStore<T> {

    private final Function<T, ScaleTarget> extract;
    private final Supplier<T> shellFactory;
    private final Map<String, ScaleTarget> byKey = new ConcurrentHashMap<>();

    ScaleTargetStore(Function<T, ScaleTarget> extract, Supplier<T> shellFactory) {
        this.extract = extract;
        this.shellFactory = shellFactory;
    }

    /** The cached scale of namespace/name, null when not cached. */
    ScaleTarget scale(String key) {
        return byKey.get(key);
    }

    @Override
    public String getKey(T obj) {
        return obj.getMetadata().getNamespace() + "/" + obj.getMetadata().getName();
    }

    @Override
    public T put(String key, T obj) {
        ScaleTarget previous = byKey.put(key, extract.apply(obj));
        return previous == null ? null : shell(key, previous);
    }

    @Override
    public T remove(String key) {
        ScaleTarget previous = byKey.remove(key);
        return previous == null ? null : shell(key, previous);
    }

    @Override
    public Stream<String> keySet() {
        return byKey.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return byKey.entrySet().stream().map(e -> shell(e.getKey(), e.getValue()));
    }

    @Override
    public int size() {
        return byKey.size();
    }

    @Override
    public T get(String key) {
        ScaleTarget s = byKey.get(key);
        return s == null ? null : shell(key, s);
    }

    private T shell(String key, ScaleTarget s) {
        int slash = key.indexOf('/');
        T obj = shellFactory.get();
        obj.setMetadata(new ObjectMetaBuilder().withNamespace(key.substring(0, slash)).withName(key.substring(slash + 1))
                .withResourceVersion(s.resourceVersion()).build());
        return obj;
    }
}
