package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;

import java.util.ArrayList;
import java.util.List;

/**
 * The API server of one HPA's simulated cluster: the scale subresource of its workload (with a
 * resourceVersion that guards writes), the pods, the HPA's status subresource and its events.
 */
final class SimulatedCluster implements ScaleClient, PodSource, StatusWriter, EventRecorder {

    private final SimulatedWorkload workload;
    private final VirtualClock clock;
    private final String selectorText;
    private final List<RecordedEvent> events = new ArrayList<>();
    private long resourceVersion = 1;

    SimulatedCluster(SimulatedWorkload workload, VirtualClock clock) {
        this.workload = workload;
        this.clock = clock;
        this.selectorText = Selector.ofLabels(workload.labels()).toString();
    }

    List<RecordedEvent> events() {
        return events;
    }

    // ---- ScaleClient: the workload's scale subresource ----

    @Override
    public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
        if (!workload.name().equals(target.getName())) {
            throw new ApiException.NotFound(target.getKind() + " \"" + target.getName() + "\" not found");
        }
        return new ScaleTarget(workload.specReplicas(), workload.podCount(), selectorText, Long.toString(resourceVersion));
    }

    @Override
    public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException {
        if (!Long.toString(resourceVersion).equals(current.resourceVersion())) {
            throw new ApiException.Conflict("Operation cannot be fulfilled on " + target.getKind() + " \"" + target.getName()
                    + "\": the object has been modified; please apply your changes to the latest version and try again");
        }
        workload.scaleTo(replicas, clock.now());
        resourceVersion++;
    }

    /** Someone else touched the workload (a fault): the next write with the old resourceVersion conflicts. */
    void bumpResourceVersion() {
        resourceVersion++;
    }

    // ---- PodSource ----

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        if (!selector.matches(workload.labels())) {
            return List.of();
        }
        return workload.podInfos(clock.now());
    }

    // ---- StatusWriter: the status is stored on the HPA object, so the next sync reads it ----

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) {
        hpa.setStatus(status);
    }

    // ---- EventRecorder ----

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        events.add(new RecordedEvent(clock.now(), hpa.getMetadata().getName(), type.name(), reason, message));
    }
}
