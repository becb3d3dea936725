package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.ScaleClient;

/**
 * The scale subresource of any kind that has one: Deployment, StatefulSet, ReplicaSet,
 * ReplicationController, or a custom resource. The kind is resolved to its resource by API discovery.
 */
public final class ScaleSubresource implements ScaleClient {

    private final KubeApi api;
    private final ApiDiscovery discovery;
    private final WriteGate gate;

    public ScaleSubresource(KubeApi api, ApiDiscovery discovery, WriteGate gate) {
        this.api = api;
        this.discovery = discovery;
        this.gate = gate;
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
        api.put(path, scale);
    }
}
