package io.hpacontroller.controller;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * The workers waiting in {@link WorkQueue#take}, under the queue's lock: one of them, the leader, waits for the time
 * the next key may be handed out; the others wait until signalled (the leader-follower wait of
 * {@link java.util.concurrent.DelayQueue}). A key coming due wakes one worker, not every idle one, and a sync ending
 * wakes none unless it moved the next key's time earlier.
 */
final class Waiters {

    private final Condition changed;
    private Thread leader;

    Waiters(Lock lock) {
        this.changed = lock.newCondition();
    }

    /**
     * Waits, holding the lock, up to {@code nanos}: as the leader, when there is none, at most until the next key's time
     * ({@code untilNext}, ticker nanoseconds); else until signalled.
     */
    void await(long nanos, LongSupplier untilNext) throws InterruptedException {
        if (leader != null) {
            changed.awaitNanos(nanos);
            return;
        }
        Thread me = Thread.currentThread();
        leader = me;
        try {
            changed.awaitNanos(Math.min(nanos, untilNext.getAsLong()));
        } finally {
            if (leader == me) {
                leader = null;
            }
        }
    }

    /** The next key's time may be earlier, or a key is due now: one waiting worker looks again, as the leader. */
    void newLeader() {
        leader = null;
        changed.signal();
    }

    /** A worker leaves {@link WorkQueue#take}: with keys still queued and no leader, one waiting worker takes its place. */
    void leaving(boolean keysQueued) {
        if (leader == null && keysQueued) {
            changed.signal();
        }
    }

    /** Every waiting worker looks again (a manual ticker moved, or the queue shuts down). */
    void all() {
        leader = null;
        changed.signalAll();
    }
}
