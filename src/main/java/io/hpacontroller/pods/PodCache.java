package io.hpacontroller.pods;

import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.PodSource;

import java.util.List;
import java.util.Map;

/**
 * The pods of the watched namespaces: one {@link PodIndex} per Pod informer (one for all namespaces,
 * or one per watched namespace), each filled by its informer.
 */
public final class PodCache implements PodSource {

    public static final String ALL = "";

    private final Map<String, PodIndex> indexes;

    public PodCache(Map<String, PodIndex> indexes) {
        this.indexes = Map.copyOf(indexes);
    }

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        PodIndex index = indexes.get(ALL);
        if (index == null) {
            index = indexes.get(namespace);
        }
        return index == null ? List.of() : index.list(namespace, selector);
    }

    public int size() {
        return indexes.values().stream().mapToInt(PodIndex::size).sum();
    }
}
