package io.hpacontroller.explain;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;

import java.util.ArrayList;
import java.util.List;

/**
 * The write ports of a read-only sync: scale reads go to the cluster, every write (scale, status, event)
 * is recorded and reported as done, so the core decides exactly as it would and nothing changes.
 */
public final class WouldWrite implements ScaleClient, StatusWriter, EventRecorder {

    /** An event the sync would have posted. */
    public record Event(String type, String reason, String message) {
    }

    /**
     * What the sync would have written.
     *
     * @param scale  the replica count written to the scale, null when none
     * @param status the status written, null when unchanged
     * @param events the events posted
     */
    public record Writes(Integer scale, HorizontalPodAutoscalerStatus status, List<Event> events) {
    }

    private final ScaleClient scales;
    private Integer scale;
    private HorizontalPodAutoscalerStatus status;
    private final List<Event> events = new ArrayList<>();

    WouldWrite(ScaleClient scales) {
        this.scales = scales;
    }

    @Override
    public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
        return scales.get(namespace, target);
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) {
        scale = replicas;
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus next) {
        status = next;
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        events.add(new Event(type.name(), reason, message));
    }

    Writes writes() {
        return new Writes(scale, status, List.copyOf(events));
    }
}
