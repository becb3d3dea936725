package io.hpacontroller.ops;

import java.time.Instant;
import java.util.Objects;

/**
 * The Lease the leader election works on, as client-go's resource lock sees it: read it, create it,
 * or replace it guarded by the resourceVersion it was read with.
 */
interface LeaseStore {

    /** What the Lease says, null when there is no Lease. */
    LeaderRecord get() throws LeaseException;

    /** Creates the Lease; fails when one exists. Returns the record as stored (with its resourceVersion). */
    LeaderRecord create(LeaderRecord record) throws LeaseException;

    /** Replaces the Lease if it is still at {@code record.resourceVersion()}; fails when it changed meanwhile. */
    LeaderRecord update(LeaderRecord record) throws LeaseException;

    /**
     * The leader election record a Lease holds (client-go's LeaderElectionRecord).
     *
     * @param holder               spec.holderIdentity, "" when nobody holds it
     * @param leaseDurationSeconds how long a standby waits after it last saw the record change
     * @param resourceVersion      the Lease's, guards the next update
     */
    record LeaderRecord(String holder, int leaseDurationSeconds, Instant acquireTime, Instant renewTime, int transitions,
                        String resourceVersion) {

        public LeaderRecord {
            holder = holder == null ? "" : holder;
        }

        /** Same content (the resourceVersion aside): nobody renewed or took the lease since. */
        boolean sameAs(LeaderRecord other) {
            return other != null && holder.equals(other.holder) && leaseDurationSeconds == other.leaseDurationSeconds
                    && Objects.equals(acquireTime, other.acquireTime) && Objects.equals(renewTime, other.renewTime)
                    && transitions == other.transitions;
        }
    }

    /** The Lease could not be read or written (a conflict included). */
    final class LeaseException extends Exception {
        LeaseException(String message) {
            super(message);
        }
    }
}
