package io.hpacontroller.core.normalize;

/**
 * What the predictive scaler ({@code core.reconcile.LoadPrediction}) learned of one HPA's load, in its persisted
 * form (an encoded form of at most 64 KiB of text, opaque here), null when nothing. Held apart from the
 * {@link HpaHistory}; here, beside {@link HistoryStore}, because it is kept in the cluster with it
 * ({@link HistorySnapshot}), at most once a minute when nothing else changed.
 */
public final class LearnedLoad {

    private volatile String encoded;

    public LearnedLoad(String encoded) {
        this.encoded = encoded;
    }

    /** What was learned, null when nothing. */
    public String encoded() {
        return encoded;
    }

    /** Replaces what was learned (null: nothing). */
    public void set(String encoded) {
        this.encoded = encoded;
    }
}
