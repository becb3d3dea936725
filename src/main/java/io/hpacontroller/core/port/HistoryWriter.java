package io.hpacontroller.core.port;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.Retention;

/**
 * Port: keeps an HPA's history where the next leader finds it (the live controller: one
 * HorizontalPodAutoscalerHistory object per HPA). Called at every sync that reached a decision, before the
 * scale is written; the implementation writes only when what it kept last is no longer
 * {@linkplain Retention#equivalent equivalent}. At the start of every sync it is asked to {@link #restore} the HPA's
 * history, which it does the first time only.
 */
public interface HistoryWriter {

    /**
     * Called at the start of every sync, before anything reads the HPA's history in memory: the first time for this HPA
     * in this process (and again once it was forgotten: the HPA deleted, or its kept history written by another
     * instance), restores the history kept for it into memory; nothing otherwise. Never throws: what cannot be restored
     * leaves an empty history. The default (nothing is kept elsewhere): nothing.
     *
     * @param hpa the HPA as the sync reads it
     * @param now the sync's time (epoch millis): a restored run in progress lasted until then
     */
    default void restore(HorizontalPodAutoscaler hpa, long now) {
    }

    /**
     * Keeps the history if it changed in a way a decision could tell.
     *
     * @param hpa       the HPA as read
     * @param kept      its history compacted at {@code now}, the scale about to be written included
     * @param retention the windows it was compacted for
     * @param now       the sync's time (epoch millis)
     */
    void save(HorizontalPodAutoscaler hpa, HistorySnapshot kept, Retention retention, long now) throws ApiException;

    /** Keeps nothing: the simulator, the conformance runner, {@code explain}, and {@code run} with persistence off. */
    HistoryWriter NONE = (hpa, kept, retention, now) -> {
    };
}
