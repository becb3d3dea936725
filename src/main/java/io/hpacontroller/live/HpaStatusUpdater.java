package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.DecisionTrace;
import io.hpacontroller.core.reconcile.StatusWriter;

/**
 * Writes an HPA's status through the status subresource of its API (PUT, guarded by the resourceVersion of
 * the HPA as the informer saw it). When the HPA changed meanwhile (409), the latest one is read and the
 * status written once more on top of it; the informer's next event reconciles any spec change. Each write
 * passes the {@link WriteGate} right before it is sent. A mirror HPA's status also gets the printer
 * columns' fields and the decision of the sync that writes it ({@link MirrorHpaStatus}).
 */
public final class HpaStatusUpdater implements StatusWriter {

    private final KubeApi api;
    private final WriteGate gate;

    public HpaStatusUpdater(KubeApi api, WriteGate gate) {
        this.api = api;
        this.gate = gate;
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        write(hpa, status, null);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) throws ApiException {
        HpaApi kind = HpaApi.of(hpa);
        String path = kind.path(hpa.getMetadata().getNamespace(), hpa.getMetadata().getName());
        gate.check();
        try {
            api.put(path + "/status", withStatus(kind, hpa, status, decided));
        } catch (ApiException.Conflict e) {
            HorizontalPodAutoscaler latest = kind == HpaApi.MIRROR ? api.get(path, MirrorHpa.class).toCore() : api.get(path, HorizontalPodAutoscaler.class);
            gate.check();
            api.put(path + "/status", withStatus(kind, latest, status, decided));
        }
    }

    /** A copy of the HPA carrying the new status; the informer's object is never modified. */
    private static Object withStatus(HpaApi kind, HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) {
        if (kind == HpaApi.MIRROR) {
            return MirrorHpa.of(hpa, MirrorHpaStatus.of(hpa, status, decided));
        }
        return new HorizontalPodAutoscaler(kind.apiVersion(), "HorizontalPodAutoscaler", hpa.getMetadata(), hpa.getSpec(), status);
    }
}
