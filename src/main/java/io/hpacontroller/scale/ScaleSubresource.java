package io.hpacontroller.scale;

import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.api.ApiDiscovery;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.OwnWrites;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.ScaleClient;

/**
 * The scale subresource of any kind that has one: Deployment, StatefulSet, ReplicaSet,
 * ReplicationController, or a custom resource. The kind is resolved to its resource by API discovery.
 *
 * <p>For the built-in kinds the scale is read from informers ({@link WorkloadScales}) rather than with
 * one GET per reconcile. A decision is made from one scale and the write is guarded by that scale's
 * resourceVersion, which for the scale subresource is the resourceVersion of the target object itself
 * (the API server checks it against the Deployment's): however far behind the informer is, the write
 * succeeds only if the target did not change since the scale the decision was made from. A stale cache
 * can therefore cost a 409, never a write computed from old state; a scale without a resourceVersion is
 * never written (the write would be unconditional).
 *
 * <p>After this controller wrote a scale, or a write failed (a conflict: someone else changed the
 * target), the cache is known to be behind: reads go to the API until the informer has delivered the
 * version the API last returned ({@link OwnWrites}).
 */
public final class ScaleSubresource implements ScaleClient {

    private final KubeApi api;
    private final KubeApi writes;
    private final ApiDiscovery discovery;
    private final WriteGate gate;
    private final WorkloadScales cache;
    /** Targets whose cached scale is behind our last write. */
    private final OwnWrites<String> ownWrites = new OwnWrites<>();

    public ScaleSubresource(KubeApi api, ApiDiscovery discovery, WriteGate gate) {
        this(api, api, discovery, gate, null);
    }

    /**
     * @param api    for reads
     * @param writes for writes (its timeout fits the write gate's)
     */
    public ScaleSubresource(KubeApi api, KubeApi writes, ApiDiscovery discovery, WriteGate gate, WorkloadScales cache) {
        this.api = api;
        this.writes = writes;
        this.discovery = discovery;
        this.gate = gate;
        this.cache = cache;
    }

    private boolean cached(CrossVersionObjectReference target) {
        return cache != null && cache.covers(target.getApiVersion(), target.getKind());
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
        if (!cached(target)) {
            return read(namespace, target);
        }
        ScaleTarget cachedScale = cache.get(namespace, target.getApiVersion(), target.getKind(), target.getName());
        return ownWrites.current(key(namespace, target), cachedScale, ScaleTarget::resourceVersion, () -> read(namespace, target));
    }

    @Override
    public ScaleTarget peek(String namespace, CrossVersionObjectReference target) throws ApiException {
        if (!cached(target)) {
            return read(namespace, target);
        }
        ScaleTarget cachedScale = cache.get(namespace, target.getApiVersion(), target.getKind(), target.getName());
        return cachedScale != null || cache.synced(target.getApiVersion(), target.getKind()) ? cachedScale : read(namespace, target);
    }

    @Override
    public ScaleTarget cachedOnly(String namespace, CrossVersionObjectReference target) {
        return cached(target) ? cache.get(namespace, target.getApiVersion(), target.getKind(), target.getName()) : null;
    }

    private ScaleTarget read(String namespace, CrossVersionObjectReference target) throws ApiException {
        return scaleTarget(api.get(path(namespace, target), Scale.class));
    }

    private static ScaleTarget scaleTarget(Scale scale) {
        int spec = scale.getSpec() == null || scale.getSpec().getReplicas() == null ? 0 : scale.getSpec().getReplicas();
        int status = scale.getStatus() == null || scale.getStatus().getReplicas() == null ? 0 : scale.getStatus().getReplicas();
        String selector = scale.getStatus() == null ? null : scale.getStatus().getSelector();
        return new ScaleTarget(spec, status, selector, scale.getMetadata() == null ? null : scale.getMetadata().getResourceVersion());
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException {
        if (current.resourceVersion() == null || current.resourceVersion().isEmpty()) {
            throw new ApiException("the scale of " + target.getKind() + "/" + namespace + "/" + target.getName()
                    + " was read without a resourceVersion: refusing to write it unguarded");
        }
        Scale scale = new Scale();
        scale.setApiVersion("autoscaling/v1");
        scale.setKind("Scale");
        scale.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(target.getName()).withNamespace(namespace).withResourceVersion(current.resourceVersion()).build());
        scale.setSpec(new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleSpec(replicas));
        String path = path(namespace, target);
        gate.check();
        String written = null;
        try {
            written = versionIn(writes.put(path, scale));
        } finally {
            if (cached(target)) {
                ownWrites.wrote(key(namespace, target), written);
            }
        }
    }

    /** The resourceVersion of the scale the API answered a write with, null when it cannot be read. */
    private String versionIn(String response) {
        try {
            Scale written = api.serialization().unmarshal(response, Scale.class);
            return written == null || written.getMetadata() == null ? null : written.getMetadata().getResourceVersion();
        } catch (RuntimeException e) {
            return null; // the write succeeded; the next read goes to the API
        }
    }
}
