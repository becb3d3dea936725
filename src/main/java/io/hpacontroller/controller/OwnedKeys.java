package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;

import java.util.Collection;

/**
 * With {@code --sharding} the {@link WorkQueue} holds only the HPAs this replica owns ({@link SyncClaims#queues}): the
 * membership tells it, through this, which HPAs it gained and lost at a change of view. The informers' events put
 * only owned HPAs in the queue; the others' HPAs are read for their selectors only.
 */
public interface OwnedKeys {

    /** Every HPA key the informers hold that this replica may reconcile: what a change of view may give it. */
    Collection<HpaKey> all();

    /** Gained: into the queue at its first due (with its own period) unless it is there; the handover then places it. */
    void gained(HpaKey key);

    /**
     * Lost (the view this replica publishes gives it to another): out of the queue, what was kept of it forgotten if it
     * was synced here, and its selector recorded as another replica's HPA's.
     */
    void lost(HpaKey key);
}
