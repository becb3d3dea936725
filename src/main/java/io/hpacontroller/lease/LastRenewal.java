package io.hpacontroller.lease;

import io.hpacontroller.controller.Ticker;

import java.time.Duration;

/**
 * The last renewal of this replica's Lease that counted: when its attempt started, on the monotonic clock. Writes are
 * fenced on it: they may start while it is {@linkplain #fresh fresh}, younger than the renew deadline. Others count the
 * Lease expired only a lease duration after they saw that renewal land, which is later.
 */
public final class LastRenewal {

    private final Ticker ticker;
    private final long renewDeadline;
    /** The start of the renewal that counted, null while none does (before the first, or after a lapse). */
    private volatile Long at;

    public LastRenewal(Ticker ticker, Duration renewDeadline) {
        this.ticker = ticker;
        this.renewDeadline = renewDeadline.toNanos();
    }

    /** A renewal whose attempt started at {@code attemptStart} succeeded: it counts. */
    public void renewed(long attemptStart) {
        at = attemptStart;
    }

    /**
     * A renewal whose attempt started at {@code attemptStart} succeeded, answered now: it counts only if that is within
     * the renew deadline of the last renewal that counted (of its own start when none does). Otherwise it may have landed
     * after the others counted the Lease expired, so none counts any more (a lapse). Returns whether it counted.
     */
    public boolean renewedInTime(long attemptStart) {
        Long last = at;
        if (ticker.nanos() - (last == null ? attemptStart : last) >= renewDeadline) {
            at = null;
            return false;
        }
        at = attemptStart;
        return true;
    }

    /** Whether a renewal counts and is younger than the renew deadline: a write may start now. */
    public boolean fresh() {
        Long last = at;
        return last != null && ticker.nanos() - last < renewDeadline;
    }

    /** Whether a renewal counts but the renew deadline has passed since it (not yet {@linkplain #forget forgotten}). */
    public boolean overdue() {
        Long last = at;
        return last != null && ticker.nanos() - last >= renewDeadline;
    }

    /** Whether a renewal counts, fresh or not. */
    public boolean any() {
        return at != null;
    }

    /** No renewal counts any more (a lapse, a lost lease, a release). */
    public void forget() {
        at = null;
    }
}
