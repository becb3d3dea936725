package io.hpacontroller.shard;

import io.hpacontroller.controller.SyncClaims;
import io.hpacontroller.core.HpaKey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The claim rule, so that no HPA is ever synced by two replicas at once: this replica syncs an HPA only if it owns it on
 * the ring of every view it is bound by, AND no other live member's published view gives it to that other member.
 *
 * <p>It is bound by the view its Lease publishes and, during a change, by the next one as well:
 * <ol>
 * <li>{@link #restrict}: the next view is added: what it would lose stops at once (no new sync starts);</li>
 * <li>{@link #drain}: waits for the syncs in flight of what it lost;</li>
 * <li>{@link #published}: the next view is in its Lease (the caller wrote it), still bound by both;</li>
 * <li>{@link #observed} with a list of the Leases read after that write: bound by the new view alone (what it gained
 *     is claimed only now, checked against the others' views as they were after it published).</li>
 * </ol>
 * Why two replicas A and B never claim one HPA: each claims only what its own published view gives it, checked against
 * a list read after it published. Say A claimed first; its check read B's view and found the HPA not B's. For B to claim
 * it, B must later publish a view giving it to B and then read A's view: that read comes after A's publish, so it finds
 * the HPA A's (A publishes a view that drops it only after it stopped syncing it and drained), and B refrains. A member
 * whose Lease expired has stopped syncing, since a replica whose renewals fail claims nothing ({@link #stale}) and its
 * writes are fenced on its renewals, before the others could count its Lease expired.
 */
public final class ShardClaims implements SyncClaims {

    private final String me;
    /** The views this replica is bound by: the published one, and during a change the next one. */
    private final List<SortedSet<String>> bound = new ArrayList<>();
    private SortedSet<String> published = new TreeSet<>();
    private boolean awaitingRead;
    /** The other live members' published views. */
    private Map<String, SortedSet<String>> others = Map.of();
    private final Set<HpaKey> inFlight = new HashSet<>();
    /** The HPAs synced here since they were last let go. */
    private final Set<HpaKey> held = new HashSet<>();

    public ShardClaims(String me) {
        this.me = Objects.requireNonNull(me);
        bound.add(published);
    }

    public String identity() {
        return me;
    }

    @Override
    public synchronized boolean begin(HpaKey key) {
        if (!owns(key)) {
            return false;
        }
        inFlight.add(key);
        held.add(key);
        return true;
    }

    @Override
    public synchronized boolean letGo(HpaKey key) {
        return held.remove(key);
    }

    @Override
    public synchronized void end(HpaKey key) {
        inFlight.remove(key);
        notifyAll();
    }

    /** Whether this replica may sync the HPA now (the claim rule). */
    public synchronized boolean owns(HpaKey key) {
        for (SortedSet<String> view : bound) {
            if (!me.equals(Ring.owner(key, view))) {
                return false;
            }
        }
        return Ring.claimant(key, others) == null;
    }

    /** The replica that syncs the HPA: this one when it claims it, else the other live member whose view gives it that one, else null. */
    public synchronized String ownerOf(HpaKey key) {
        return owns(key) ? me : Ring.claimant(key, others);
    }

    /** The view this replica's Lease publishes. */
    public synchronized SortedSet<String> publishedView() {
        return published;
    }

    /** Whether a change of view is under way (the next view not yet published, or not yet confirmed by a read). */
    public synchronized boolean changing() {
        return bound.size() > 1;
    }

    /** Step 1 of a change: bound by {@code next} too, so what it would lose stops now. */
    public synchronized void restrict(SortedSet<String> next) {
        SortedSet<String> view = new TreeSet<>(next);
        if (!bound.contains(view)) {
            bound.add(view);
        }
    }

    /**
     * Step 2: waits until no sync is in flight of an HPA this replica no longer owns, up to the timeout; returns
     * whether none is.
     */
    public synchronized boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inFlight.stream().anyMatch(k -> !owns(k))) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** Step 3: the Lease now publishes {@code view} (written); bound by it and by what was published before. */
    public synchronized void published(SortedSet<String> view) {
        SortedSet<String> before = published;
        published = new TreeSet<>(view);
        bound.clear();
        bound.add(before);
        bound.add(published);
        awaitingRead = true;
    }

    /**
     * Step 4, and every period: the other live members and their published views, from a list read after this
     * replica's latest write of its Lease; the first such list after {@link #published} ends the change.
     */
    public synchronized void observed(SortedMap<String, MemberLease> live) {
        Map<String, SortedSet<String>> views = new TreeMap<>();
        live.forEach((id, lease) -> {
            if (!id.equals(me)) {
                views.put(id, lease.view());
            }
        });
        others = views;
        if (awaitingRead) {
            awaitingRead = false;
            bound.clear();
            bound.add(published);
        }
        notifyAll();
    }

    /**
     * This replica's renewals failed for the renew deadline: it claims nothing until it published a view again (and read
     * the others' after it), as a replica starting afresh.
     */
    public synchronized void stale() {
        published = new TreeSet<>();
        bound.clear();
        bound.add(published);
        awaitingRead = false;
    }

    /** How many of these keys this replica claims (for the owned-HPAs gauge). */
    public synchronized int ownedOf(Iterable<HpaKey> keys) {
        int n = 0;
        for (HpaKey key : keys) {
            if (owns(key)) {
                n++;
            }
        }
        return n;
    }

    /** For the shard members gauge: how many members the published view names. */
    public synchronized int members() {
        return published.size();
    }
}
