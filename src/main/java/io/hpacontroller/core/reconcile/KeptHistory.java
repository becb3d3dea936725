package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Retention;
import io.hpacontroller.core.normalize.ScaleEvents;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.HistoryWriter;

/**
 * The history kept for the next leader: each sync first lets the {@link HistoryWriter} restore what it kept (the
 * first sync of an HPA in this process), and hands it the history as it will be once its scale is recorded, before
 * the scale is written, so a new leader never meets a scale whose event it does not know.
 */
final class KeptHistory {

    private final HistoryWriter writer;
    private final EventRecorder events;
    private final HistoryStore histories;
    private final java.time.Clock clock;

    KeptHistory(HistoryWriter writer, EventRecorder events, HistoryStore histories, java.time.Clock clock) {
        this.writer = writer;
        this.events = events;
        this.histories = histories;
        this.clock = clock;
    }

    /** Before anything reads the HPA's history: restored where it was kept, the first time only ({@link HistoryWriter#restore}). */
    void restore(HorizontalPodAutoscaler hpa, long now) {
        writer.restore(hpa, now);
    }

    /**
     * Hands the history, as it will be once the scale from {@code currentReplicas} to {@code nextReplicas} is
     * recorded, to the writer. Returns null when it was kept, else the error, which also costs a Warning event
     * {@value Reconciler#FAILED_UPDATE_HISTORY}: a sync that would scale then does not write the scale; one that would
     * not goes on with the history in memory, and the next sync tries again.
     */
    String save(Sync s, HpaHistory history, Retention retention, Behavior behavior, int currentReplicas, int nextReplicas) {
        if (writer == HistoryWriter.NONE) {
            return null;
        }
        long at = clock.millis(); // the scale is written right after: the next leader counts its periods from here
        HistorySnapshot planned = histories.snapshotWith(s.key(), ScaleEvents.planned(history, behavior, currentReplicas, nextReplicas, at));
        try {
            writer.save(s.hpa(), retention.compact(planned, at), retention, at);
            return null;
        } catch (ApiException e) {
            events.record(s.hpa(), EventRecorder.Type.Warning, Reconciler.FAILED_UPDATE_HISTORY,
                    "failed to keep the history (recommendations, scale events) for the next leader: " + e.getMessage());
            return e.getMessage();
        }
    }
}
