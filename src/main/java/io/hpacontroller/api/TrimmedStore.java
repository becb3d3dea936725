package io.hpacontroller.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.dsl.Informable;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An informer's store that keeps of its objects only what the controller reads (issue 35: the cache held what the
 * API server allows, 256 KB of annotations per object, so 500 HPAs carrying them exhausted a 128 MB heap):
 * <ul>
 *   <li>no {@code metadata.managedFields}: the API server's record of which manager set which field (a nested map
 *       per field, for the spec's writer and for every status writer), which the controller never reads. At 1,000
 *       HPAs against a real API server that was about 3 MiB of resident memory. A status written from a cached HPA
 *       then has no managedFields, which the API server takes as "unchanged": only a list with one empty entry would
 *       clear them.</li>
 *   <li>when given a kept prefix, of the annotations only those under it (the controls, {@code
 *       autoscaling.hpa-controller.io/}): not {@code kubectl.kubernetes.io/last-applied-configuration} nor any other
 *       tool's. Only for objects whose status subresource keeps the stored metadata whatever a PUT sends: a custom
 *       resource's does; autoscaling/v2's (v1.26) takes the request's annotations, so a status written from a trimmed
 *       copy would delete them ({@code HeapPerHpaIT}).</li>
 * </ul>
 * The informer lists in pages of {@value #PAGE} objects, each trimmed as it is put here, so a (re)list holds one
 * page of whole objects at a time, not the whole list.
 */
public final class TrimmedStore<T extends HasMetadata> implements ItemStore<T> {

    /** Objects per page of an informer's list: at most about 13 MB of annotations at 256 KB each. */
    static final long PAGE = 50;

    private final BasicItemStore<T> store = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    private final String keptAnnotationPrefix;

    /** A store that keeps the annotations whose name starts with {@code keptAnnotationPrefix}; every one when it is null. */
    public TrimmedStore(String keptAnnotationPrefix) {
        this.keptAnnotationPrefix = keptAnnotationPrefix;
    }

    /**
     * As {@link Informable#inform(ResourceEventHandler, long)} (no resync; blocks until started), with this store and
     * pages of {@value #PAGE}.
     */
    public static <T extends HasMetadata> SharedIndexInformer<T> inform(Informable<T> informable, String keptAnnotationPrefix,
                                                                       ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> informer = informable.withLimit(PAGE).runnableInformer(0);
        informer.itemStore(new TrimmedStore<>(keptAnnotationPrefix));
        informer.addEventHandler(handler);
        return informer.run();
    }

    @Override
    public String getKey(T object) {
        return store.getKey(object);
    }

    @Override
    public T put(String key, T object) {
        ObjectMeta meta = object.getMetadata();
        if (meta != null) {
            meta.setManagedFields(null);
            Map<String, String> annotations = meta.getAnnotations();
            if (keptAnnotationPrefix != null && annotations != null && !annotations.isEmpty()
                    && !annotations.keySet().stream().allMatch(name -> name.startsWith(keptAnnotationPrefix))) {
                Map<String, String> kept = new LinkedHashMap<>();
                annotations.forEach((name, value) -> {
                    if (name.startsWith(keptAnnotationPrefix)) {
                        kept.put(name, value);
                    }
                });
                meta.setAnnotations(kept);
            }
        }
        return store.put(key, object);
    }

    @Override
    public T remove(String key) {
        return store.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return store.keySet();
    }

    @Override
    public Stream<T> values() {
        return store.values();
    }

    @Override
    public int size() {
        return store.size();
    }

    @Override
    public T get(String key) {
        return store.get(key);
    }
}
