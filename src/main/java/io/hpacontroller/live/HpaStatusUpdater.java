package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.StatusWriter;

/**
 * Writes an HPA's status through the status subresource (PUT, guarded by the resourceVersion of the
 * HPA as the informer saw it). When the HPA changed meanwhile (409), the latest one is read and the
 * status written once more on top of it; the informer's next event reconciles any spec change. Each
 * write passes the {@link WriteGate} right before it is sent.
 */
public final class HpaStatusUpdater implements StatusWriter {

    private final KubeApi api;
    private final WriteGate gate;

    public HpaStatusUpdater(KubeApi api, WriteGate gate) {
        this.api = api;
        this.gate = gate;
    }

    static String path(String namespace, String name) {
        return "/apis/autoscaling/v2/namespaces/" + namespace + "/horizontalpodautoscalers/" + name;
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        String path = path(hpa.getMetadata().getNamespace(), hpa.getMetadata().getName()) + "/status";
        gate.check();
        try {
            api.put(path, withStatus(hpa, status));
        } catch (ApiException.Conflict e) {
            HorizontalPodAutoscaler latest = api.get(path(hpa.getMetadata().getNamespace(), hpa.getMetadata().getName()), HorizontalPodAutoscaler.class);
            gate.check();
            api.put(path, withStatus(latest, status));
        }
    }

    /** A copy of the HPA carrying the new status; the informer's object is never modified. */
    private static HorizontalPodAutoscaler withStatus(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) {
        HorizontalPodAutoscaler copy = new HorizontalPodAutoscaler("autoscaling/v2", "HorizontalPodAutoscaler", hpa.getMetadata(), hpa.getSpec(), status);
        return copy;
    }
}
