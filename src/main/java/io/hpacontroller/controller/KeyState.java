package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;

/**
 * All the {@link WorkQueue} knows of one key, in one object (as java-operator-sdk's {@code ResourceState}): which of
 * the {@link State}s it is in, when it is due, its last sync, whether it changed while a worker had it, and the period
 * the pace counts it at. Guarded by the queue's lock.
 */
final class KeyState {

    /** Where a key is in the queue: each key the queue holds is in exactly one of these. */
    enum State {
        /** Added before the queue started: scheduled for its first sync when the first worker asks for work. */
        BEFORE_START,
        /** Due at {@link KeyState#at}. */
        SCHEDULED,
        /** Due since {@link KeyState#at}, handed out as the pace allows. */
        READY,
        /** Due since {@link KeyState#at}, handed out first and not paced (a new HPA). */
        READY_NOW,
        /** A worker has it. */
        PROCESSING,
        /** A worker has it and it was forgotten meanwhile (the HPA was deleted): not requeued when the worker is done. */
        PROCESSING_FORGOTTEN
    }

    /** When a key's last sync was due and when a worker took it (ticker times). */
    record LastSync(long due, long started) {
    }

    final HpaKey key;
    State state;
    /** {@link State#SCHEDULED}: when it is due; {@link State#READY} and {@link State#READY_NOW}: since when. */
    long at;
    /** Its last sync; null until a worker first takes it (and again after it is forgotten while a worker has it). */
    LastSync last;
    /** It changed while a worker had it: due at the next allowed time when the worker is done (at once if new). */
    boolean changedMeanwhile;
    /** The period it was last scheduled at (nanoseconds): the pace counts it at this one, and its {@link Coalesce} cell comes from it; 0 while not counted. */
    long pacedPeriod;
    /**
     * When its next sync is due on this replica's schedule (ticker time; {@link #NO_DUE}: not known): after its last sync
     * here (at least a period after that sync was due), or handed over with it ({@link WorkQueue#handOver}).
     */
    long syncDue = NO_DUE;
    static final long NO_DUE = Long.MIN_VALUE;
    /** Handed over while a worker had it or before the queue started: due at {@link #syncDue} when the worker is done or at the start. */
    boolean handedOver;

    KeyState(HpaKey key, State state) {
        this.key = key;
        this.state = state;
    }

    boolean isReady() {
        return state == State.READY || state == State.READY_NOW;
    }

    boolean isProcessing() {
        return state == State.PROCESSING || state == State.PROCESSING_FORGOTTEN;
    }
}
