package io.hpacontroller.core.port;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Retention;

/**
 * Port: keeps an HPA's history where the next leader finds it (the live controller: one
 * HorizontalPodAutoscalerHistory object per HPA). Called at every sync that reached a decision, before the
 * scale is written; the implementation writes only when what it kept last is no longer
 * {@linkplain Retention#equivalent equivalent}.
 */
public interface HistoryWriter {

    /**
     * Keeps the history if it changed in a way a decision could tell.
     *
     * @param hpa       the HPA as read
     * @param kept      its history compacted at {@code now}, the scale about to be written included
     * @param retention the windows it was compacted for
     * @param now       the sync's time (epoch millis)
     */
    void save(HorizontalPodAutoscaler hpa, HpaHistory.Snapshot kept, Retention retention, long now) throws ApiException;

    /** Keeps nothing: the simulator, the conformance runner, {@code explain}, and {@code run} with persistence off. */
    HistoryWriter NONE = (hpa, kept, retention, now) -> {
    };
}
