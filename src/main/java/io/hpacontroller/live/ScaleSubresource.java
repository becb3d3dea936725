package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.ScaleClient;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The scale subresource of any kind that has one: Deployment, StatefulSet, ReplicaSet,
 * ReplicationController, or a custom resource. The kind is resolved to its resource by API discovery.
 *
 * <p>For the built-in kinds the scale is read from informers ({@link WorkloadScales}) rather than
 * with one GET per reconcile. After this controller wrote a scale, or a write met a conflict, the
 * cached copy is known to be behind: reads go to the API until the informer has delivered a newer
 * version. Writes always go to the API, guarded by the resourceVersion.
 */
public final class ScaleSubresource implements ScaleClient {

    private final KubeApi api;
    private final ApiDiscovery discovery;
    private final WriteGate gate;
    private final WorkloadScales cache;
    /** Keys whose cached scale is behind, with the resourceVersion the cache had then. */
    private final Map<String, String> behind = new ConcurrentHashMap<>();

    public ScaleSubresource(KubeApi api, ApiDiscovery discovery, WriteGate gate) {
        this(api, discovery, gate, null);
    }

    ScaleSubresource(KubeApi api, ApiDiscovery discovery, WriteGate gate, WorkloadScales cache) {
        this.api = api;
        this.discovery = discovery;
        this.gate = gate;
        this.cache = cache;
    }

    private ScaleTarget cached(String namespace, CrossVersionObjectReference target) {
        if (cache == null) {
            return null;
        }
        ScaleTarget s = cache.get(namespace, target.getApiVersion(), target.getKind(), target.getName());
        if (s == null) {
            return null;
        }
        String key = key(namespace, target);
        String behindAt = behind.get(key);
        if (behindAt != null) {
            if (behindAt.equals(s.resourceVersion())) {
                return null;
            }
            behind.remove(key, behindAt);
        }
        return s;
    }

    private void markBehind(String namespace, CrossVersionObjectReference target) {
        if (cache == null) {
            return;
        }
        ScaleTarget s = cache.get(namespace, target.getApiVersion(), target.getKind(), target.getName());
        if (s != null && s.resourceVersion() != null) {
            behind.put(key(namespace, target), s.resourceVersion());
        }
    }

    private static String key(String namespace, CrossVersionObjectReference target) {
        return target.getApiVersion() + "/" + target.getKind() + "/" + namespace + "/" + target.getName();
    }

    private String path(String namespace, CrossVersionObjectReference target) throws ApiException {
        ApiDiscovery.Resource r = discovery.resolve(target.getApiVersion(), target.getKind());
        if (!r.scalable()) {
            throw new ApiException(target.getKind() + " (" + r.qualifiedName() + ") has no scale subresource, so it cannot be autoscaled");
        }
        return r.objectPath(namespace, target.getName()) + "/scale";
    }

    @Override
    public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
        ScaleTarget cached = cached(namespace, target);
        if (cached != null) {
            return cached;
        }
        Scale scale = api.get(path(namespace, target), Scale.class);
        int spec = scale.getSpec() == null || scale.getSpec().getReplicas() == null ? 0 : scale.getSpec().getReplicas();
        int status = scale.getStatus() == null || scale.getStatus().getReplicas() == null ? 0 : scale.getStatus().getReplicas();
        String selector = scale.getStatus() == null ? null : scale.getStatus().getSelector();
        return new ScaleTarget(spec, status, selector, scale.getMetadata() == null ? null : scale.getMetadata().getResourceVersion());
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException {
        Scale scale = new Scale();
        scale.setApiVersion("autoscaling/v1");
        scale.setKind("Scale");
        scale.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(target.getName()).withNamespace(namespace).withResourceVersion(current.resourceVersion()).build());
        scale.setSpec(new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleSpec(replicas));
        String path = path(namespace, target);
        gate.check();
        try {
            api.put(path, scale);
        } finally {
            markBehind(namespace, target);
        }
    }
}
