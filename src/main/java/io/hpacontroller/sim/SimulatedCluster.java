package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;

import java.util.ArrayList;
import java.util.List;

/**
 * One HPA's simulated cluster: the {@link InMemoryCluster} fed from the workload before each sync (its scale, its pods
 * and, through {@link SimulatedMetricsApis}, the metrics APIs), whose scale writes scale the workload, whose status
 * writes are stored on the HPA object (so the next sync reads them), and whose events are kept with their time. The
 * seeded faults of the scenario, if any, come in before the calls ({@link FaultInjection}).
 */
final class SimulatedCluster extends InMemoryCluster {

    private final SimulatedWorkload workload;
    private final VirtualClock clock;
    private final String selectorText;
    private final FaultInjection faults;
    private final List<RecordedEvent> recorded = new ArrayList<>();

    /** @param faults the faults to inject, null for none */
    SimulatedCluster(SimulatedWorkload workload, VirtualClock clock, FaultInjection faults) {
        this.workload = workload;
        this.clock = clock;
        this.faults = faults;
        this.selectorText = Selector.ofLabels(workload.labels()).toString();
        this.targetName = workload.name();
        this.scale = new ScaleTarget(workload.specReplicas(), workload.podCount(), selectorText, "1");
    }

    /** The events the core recorded, with their time. */
    List<RecordedEvent> recordedEvents() {
        return recorded;
    }

    /**
     * The cluster as the workload is now: its scale (spec and status replicas; the resourceVersion moves with writes
     * only), its pods, and the metrics APIs' answers; the records of the previous sync's writes are dropped.
     */
    void feed(SimulatedMetricsApis metrics) {
        // nothing here reads the world's records of earlier syncs (the events are kept, timed, below): a week's
        // simulation would otherwise hold every status and decision trace it wrote
        clearWrites();
        scale = new ScaleTarget(workload.specReplicas(), workload.podCount(), selectorText, scale.resourceVersion());
        pods = workload.podInfos(clock.now());
        metrics.feed(this);
    }

    @Override
    protected void beforeScaleWrite() throws ApiException {
        if (faults != null) {
            faults.beforeScaleWrite(this);
        }
    }

    @Override
    protected void scaleWritten(int replicas) {
        workload.scaleTo(replicas, clock.now());
        if (faults != null) {
            faults.scaleWritten();
        }
    }

    @Override
    protected void beforeMetricRead(MetricRead read) throws ApiException {
        if (faults != null) {
            faults.beforeMetricRead(read);
        }
    }

    // ---- the status is stored on the HPA object, so the next sync reads it ----

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        super.write(hpa, status);
        hpa.setStatus(status);
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        super.record(hpa, type, reason, message);
        recorded.add(new RecordedEvent(clock.now(), hpa.getMetadata().getName(), type.name(), reason, message));
    }
}
