package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;

/**
 * Which HPAs this replica may sync now ({@code --sharding}: the ones it claims on the ring). The queue holds the keys
 * it {@link #queues} (the ones it owns; the gained and lost ones come through {@link OwnedKeys}); a worker that takes
 * one still asks {@link #begin} first (ownership may change between the enqueue and the pop) and skips the sync when
 * it is refused, and says {@link #end} once the sync is over, so that a replica handing an HPA over can wait for its
 * sync in flight (the drain).
 */
public interface SyncClaims {

    /** Every HPA, always: one replica, or the leader of leader election. */
    SyncClaims ALL = new SyncClaims() {
        @Override
        public boolean begin(HpaKey key, long takenAt) {
            return true;
        }

        @Override
        public void end(HpaKey key) {
        }

        @Override
        public boolean letGo(HpaKey key) {
            return false;
        }
    };

    /** Whether the informers' events put the HPA in this replica's queue: every HPA here; with sharding, the ones it owns now. */
    default boolean queues(HpaKey key) {
        return true;
    }

    /**
     * Whether this replica syncs the HPA now, taken from the queue at ticker time {@code takenAt} (a key taken before it
     * was handed over here is refused: the queue has its due); when true, {@link #end} must follow once the sync is over.
     */
    boolean begin(HpaKey key, long takenAt);

    /** The sync of the HPA that {@link #begin} allowed is over. */
    void end(HpaKey key);

    /**
     * Asked when {@link #begin} refused the HPA: true once after this replica synced it and lost it (to another replica),
     * so that it forgets what it kept of it (history, status, series); false else.
     */
    boolean letGo(HpaKey key);
}
