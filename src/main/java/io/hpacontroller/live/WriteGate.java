package io.hpacontroller.live;

import io.hpacontroller.core.reconcile.ApiException;

/**
 * Whether this instance may write to the cluster. With leader election only the leader may; the moment
 * it loses the lease the gate closes and every write (scale, status, event) is refused, even one a
 * worker is in the middle of.
 */
public final class WriteGate {

    private volatile boolean open;

    public WriteGate(boolean open) {
        this.open = open;
    }

    /** A gate that is always open (no leader election). */
    public static WriteGate alwaysOpen() {
        return new WriteGate(true);
    }

    public void open() {
        open = true;
    }

    public void close() {
        open = false;
    }

    public boolean isOpen() {
        return open;
    }

    /** Throws when writes are not allowed. */
    public void check() throws ApiException {
        if (!open) {
            throw new ApiException("this instance is not the leader: writes are stopped");
        }
    }
}
