package io.hpacontroller.core.fakes;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;

import java.time.Clock;

/**
 * The {@link InMemoryCluster} of the unit tests: a target {@code web} at 3 replicas, with switches for the failures
 * the tests need, and counts of how often the core read the scale, the pods and the metrics.
 */
public final class FakeCluster extends InMemoryCluster {

    // ---- faults ----
    /** Thrown by every scale read. */
    public ApiException scaleReadError;
    /** Someone else writes the scale this many times, each just before the core's next write (which then conflicts). */
    public int scaleConflicts;
    /** Just before the core's next scale write, someone else scales the target to this count ({@code kubectl scale}). */
    public Integer scaledByOthersBeforeNextWrite;
    /** Thrown by every scale write (after the writes of others above, before the resourceVersion is checked). */
    public ApiException scaleWriteError;
    /** Thrown by every status write. */
    public ApiException statusWriteError;
    /** What the status port says of another writer of the status. */
    public OtherStatusWriter otherWriter = OtherStatusWriter.UNKNOWN;
    /** Thrown by every pod listing: a port that breaks in an unexpected way. */
    public RuntimeException podListBug;

    // ---- what the core did, besides what it wrote ----
    public int scaleReads;
    /** Calls to the metrics APIs, failed ones included. */
    public int metricReads;
    /** Calls to list pods. */
    public int podLists;
    /** Syncs that found the status as they would write it. */
    public int unchangedStatuses;

    public FakeCluster() {
        scale = new ScaleTarget(3, 3, "app=web", "1");
    }

    /** A reconciler wired to this cluster. */
    public Reconciler reconciler(ControllerConfig config, HistoryStore histories, Clock clock) {
        return new Reconciler(config, Ports.of(this, SelectorOwnership.NONE), histories, clock);
    }

    @Override
    protected void beforeScaleRead() throws ApiException {
        scaleReads++;
        if (scaleReadError != null) {
            throw scaleReadError;
        }
    }

    @Override
    protected void beforeScaleWrite() throws ApiException {
        if (scaledByOthersBeforeNextWrite != null) {
            scaledByOthers(scaledByOthersBeforeNextWrite);
            scaledByOthersBeforeNextWrite = null;
        } else if (scaleConflicts > 0) {
            scaleConflicts--;
            scaledByOthers(scale.specReplicas());
        }
        if (scaleWriteError != null) {
            throw scaleWriteError;
        }
    }

    @Override
    protected void beforePodList() {
        podLists++;
        if (podListBug != null) {
            throw podListBug;
        }
    }

    @Override
    protected void beforeMetricRead(MetricRead read) {
        metricReads++;
    }

    /** A failing metric: the metrics API answers 503. */
    @Override
    protected ApiException metricFailure(MetricRead read) {
        return new ApiException("the server is currently unable to handle the request (get " + read.metric() + ")");
    }

    @Override
    protected void beforeStatusWrite() throws ApiException {
        if (statusWriteError != null) {
            throw statusWriteError;
        }
    }

    @Override
    public OtherStatusWriter otherWriter(HorizontalPodAutoscaler hpa) {
        return otherWriter;
    }

    @Override
    public void unchanged(HorizontalPodAutoscaler hpa) {
        unchangedStatuses++;
    }
}
