package io.hpacontroller.shard;

import io.hpacontroller.controller.SyncClaims;
import io.hpacontroller.core.HpaKey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

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
 *
 * <p>An HPA it gains ({@link #observed(SortedMap, Supplier)}: claimed now, not before) is held back until the caller
 * handed its place in the schedule over to the queue ({@link #admit}); a worker that took its key before that is refused
 * ({@link #begin}), so no sync starts off the schedule it was handed over with.
 */
public final class ShardClaims implements SyncClaims {

    private final String me;
    /** The views this replica is bound by: the published one, and during a change the next one. */
    private final List<SortedSet<String>> bound = new ArrayList<>();
    private SortedSet<String> published = new TreeSet<>();
    private boolean awaitingRead;
    /** The other live members' published views. */
    private Map<String, SortedSet<String>> others = Map.of();
    /** The syncs in flight, by HPA (a key the queue hands out again as its sync ends may be in flight twice, briefly). */
    private final Map<HpaKey, Integer> inFlight = new HashMap<>();
    /** The HPAs gained at the latest change: {@link #PENDING} until {@link #admit}ted, then when (ticker time). */
    private final Map<HpaKey, Long> gained = new HashMap<>();
    private static final long PENDING = Long.MAX_VALUE;
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
    public synchronized boolean begin(HpaKey key, long takenAt) {
        Long gainedAt = gained.get(key);
        if (!owns(key) || gainedAt != null && takenAt < gainedAt) {
            return false;
        }
        inFlight.merge(key, 1, Integer::sum);
        held.add(key);
        return true;
    }

    @Override
    public synchronized boolean letGo(HpaKey key) {
        return held.remove(key);
    }

    @Override
    public synchronized void end(HpaKey key) {
        inFlight.computeIfPresent(key, (k, n) -> n > 1 ? n - 1 : null);
        notifyAll();
    }

    /** Owned now: an HPA gained and not yet admitted is not (the membership puts it in the queue at its handed due). */
    @Override
    public boolean queues(HpaKey key) {
        return owns(key);
    }

    /** Whether this replica may sync the HPA now (the claim rule). */
    public synchronized boolean owns(HpaKey key) {
        return ownsUnder(bound, others, key) && (gained.isEmpty() || gained.getOrDefault(key, 0L) != PENDING);
    }

    private boolean ownsUnder(List<SortedSet<String>> views, Map<String, SortedSet<String>> othersViews, HpaKey key) {
        long keyHash = key.stableHash();
        for (SortedSet<String> view : views) {
            if (!me.equals(Ring.owner(keyHash, view))) {
                return false;
            }
        }
        return Ring.claimant(keyHash, othersViews) == null;
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
        while (inFlight.keySet().stream().anyMatch(k -> !owns(k))) {
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
        observed(live, List::of);
    }

    /**
     * {@link #observed(SortedMap)}, and returns the HPAs among {@code keys} (asked only when the claims may have
     * changed) that it claims now and did not before: held back ({@link #owns} false) until {@link #admit}ted.
     */
    public synchronized List<HpaKey> observed(SortedMap<String, MemberLease> live, Supplier<? extends Collection<HpaKey>> keys) {
        List<SortedSet<String>> boundBefore = List.copyOf(bound);
        Map<String, SortedSet<String>> othersBefore = others;
        boolean widening = see(live) || !othersBefore.equals(others);
        List<HpaKey> won = new ArrayList<>();
        if (widening) {
            gained.clear();
            for (HpaKey key : keys.get()) {
                if (ownsUnder(bound, others, key) && !ownsUnder(boundBefore, othersBefore, key)) {
                    won.add(key);
                    gained.put(key, PENDING);
                }
            }
        }
        return won;
    }

    /** The gained HPAs' places in the schedule are handed over (ticker time {@code at}): they are claimed from now on. */
    public synchronized void admit(Collection<HpaKey> keys, long at) {
        keys.forEach(k -> gained.replace(k, PENDING, at));
    }

    /** Takes in the other live members' views; returns whether it ended a change (bound by the published view alone now). */
    private boolean see(SortedMap<String, MemberLease> live) {
        Map<String, SortedSet<String>> views = new TreeMap<>();
        live.forEach((id, lease) -> {
            if (!id.equals(me)) {
                views.put(id, lease.view());
            }
        });
        others = views;
        boolean ended = awaitingRead;
        if (awaitingRead) {
            awaitingRead = false;
            bound.clear();
            bound.add(published);
        }
        notifyAll();
        return ended;
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
