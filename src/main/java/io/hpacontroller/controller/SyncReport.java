package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.ReconcileOutcome;

/**
 * One reconcile as the live controller ran it: the core's outcome plus where the time went.
 *
 * @param outcome        what the core decided (null when the HPA is gone and was only forgotten: {@link #gone})
 * @param key            the HPA's key
 * @param totalNanos     wall time of the reconcile
 * @param cpuNanos       CPU time the worker thread used for it (JSON, calculation, bookkeeping)
 * @param apiNanos       part of the wall time spent in API calls
 * @param apiCalls       API requests made
 * @param queueWaitNanos time the key waited in the queue after it was due (0 when gone)
 */
public record SyncReport(HpaKey key, ReconcileOutcome outcome, long totalNanos, long cpuNanos, long apiNanos, long apiCalls, long queueWaitNanos) {

    /** The HPA is gone: everything about it was forgotten (its listeners drop what they hold about it). */
    static SyncReport gone(HpaKey key) {
        return new SyncReport(key, null, 0, 0, 0, 0, 0);
    }
}
