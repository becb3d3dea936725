package io.hpacontroller.pods;

import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.PodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pods a selector matches, listed from the API server once per namespace and selector (no informer):
 * for a one-off sync such as {@code explain}. Pods are compacted as the controller's cache compacts them
 * and filtered with our own selector matching, so the core sees what it sees in the controller.
 */
public final class PodLister implements PodSource {

    private final KubeApi api;
    private final PodCompactor compactor = new PodCompactor();
    private final Map<String, List<PodInfo>> listed = new ConcurrentHashMap<>();

    public PodLister(KubeApi api) {
        this.api = api;
    }

    /**
     * @throws IllegalStateException when the pods cannot be listed (the sync reports it as an internal error)
     */
    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        return listed.computeIfAbsent(namespace + "?" + selector, k -> fetch(namespace, selector));
    }

    private List<PodInfo> fetch(String namespace, Selector selector) {
        if (selector.isNothing()) {
            return List.of();
        }
        String query = selector.isEverything() ? "" : "?labelSelector=" + KubeApi.encode(selector.toString());
        PodFields.Items pods;
        try {
            pods = api.get("/api/v1/namespaces/" + PathSegment.encode(namespace) + "/pods" + query, PodFields.Items.class);
        } catch (ApiException e) {
            throw new IllegalStateException("cannot list the pods of " + namespace + " (" + selector + "): " + e.getMessage(), e);
        }
        List<PodInfo> out = new ArrayList<>();
        for (PodFields pod : pods.getItems()) {
            PodInfo info = compactor.compact(pod).info();
            if (selector.matches(info.labels()::get)) {
                out.add(info);
            }
        }
        return List.copyOf(out);
    }
}
