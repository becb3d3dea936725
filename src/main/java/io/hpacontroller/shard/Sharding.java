package io.hpacontroller.shard;

import io.hpacontroller.api.KubeApi;
import io.hpacontroller.controller.OwnedKeys;
import io.hpacontroller.controller.Ticker;
import io.hpacontroller.controller.WorkQueue;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.lease.LastRenewal;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.lease.RenewLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Membership of this replica ({@code --sharding}): every retry period it lists the members' Leases (a quorum read, after
 * its own latest write), tells the {@link ShardClaims} the live members' published views, and when the live members
 * differ from the view it publishes, changes view as the claim rule says (stop what it loses, drain, publish), then
 * renews its own Lease with the view. There is no leader among the replicas.
 *
 * <p>As the leader election does, it keeps the time of its last successful renewal (the start of the attempt, on a
 * monotonic clock): its writes are fenced on it ({@link #holdsFreshLease}), and once it is older than the renew
 * deadline the replica claims nothing ({@link ShardClaims#stale}) until it renewed, published and read again; the
 * others count it gone only a lease duration after they last saw its Lease change, which is later. A renewal answered
 * after that deadline is such a lapse too.
 *
 * <p>An HPA's place in the schedule goes with it ({@link #schedule}): the Lease update that drops HPAs publishes their
 * next dues here ({@link Handover}), and a member that gains an HPA has it due at the latest of: now, the dues its
 * previous holders handed over, a period after the release of a holder whose list was capped or unreadable, a period
 * after the renew deadline of a holder whose Lease expired holding it, and its own due if it synced it before. With
 * none of these (a cold start of every replica), the queue's first-period spread stays.
 */
public final class Sharding implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sharding.class);

    private final ShardLeases leases;
    /** The members' Leases: its name is their prefix and label value. */
    private final LeaseSettings settings;
    private final Clock clock;
    private final Ticker ticker;
    private final ShardClaims claims;
    private final Membership membership;
    private MemberLease own;
    private final LastRenewal renewal;
    private volatile int liveMembers;
    private final AtomicLong handovers = new AtomicLong();
    private final AtomicLong handoverNanos = new AtomicLong();
    private RenewLoop loop;
    /** The queue whose keys' places in the schedule are handed over; null: none (the claims alone). */
    private volatile WorkQueue queue;
    /** What puts the keys this replica gains into the queue and takes the ones it loses out. */
    private volatile OwnedKeys share;
    /** The writes queued by syncs and not yet sent (events), flushed before a lapsed replica renews. */
    private volatile QueuedWrites queuedWrites = timeout -> { };

    /** Writes queued by syncs to be sent later (the controller's events). */
    public interface QueuedWrites {
        /** Waits until the writes queued so far are sent, or dropped at the gate, up to the timeout. */
        void flush(Duration timeout) throws InterruptedException;
    }
    /** What this replica's Lease hands over (null: nothing), its text, and until when (epoch ms) it is published. */
    private Handover handover;
    private String handoverText;
    private long handoverUntil;
    /** The others' handovers as last read, by identity: parsed once per text. */
    private final Map<String, Map.Entry<String, Handover>> handedOver = new HashMap<>();

    public Sharding(KubeApi api, LeaseSettings settings, Clock clock, Ticker ticker) {
        this(new ShardLeases(api, settings.namespace(), settings.name()), settings, clock, ticker);
    }

    Sharding(ShardLeases leases, LeaseSettings settings, Clock clock, Ticker ticker) {
        this.leases = leases;
        this.settings = settings;
        this.clock = clock;
        this.ticker = ticker;
        this.claims = new ShardClaims(settings.identity());
        this.membership = new Membership(ticker);
        this.renewal = new LastRenewal(ticker, settings.renewDeadline());
    }

    /** What this replica claims: hand it to the controller. */
    public ShardClaims claims() {
        return claims;
    }

    /**
     * The controller's queue (before {@link #start}), which holds only the HPAs this replica owns: gained HPAs enter it
     * through {@code share} and are due as handed over; lost ones' dues are published, then they leave it.
     */
    public void schedule(WorkQueue queue, OwnedKeys share) {
        this.share = share;
        this.queue = queue;
    }

    /**
     * The controller's queued writes (before {@link #start}): a replica whose Lease lapsed renews only once those queued
     * before are sent or dropped (ShardingIT: an event recorded before a SIGSTOP was posted after the Lease expired,
     * once the replica had renewed, 12 ms before it could own an HPA again).
     */
    public void flushBeforeRenewing(QueuedWrites queuedWrites) {
        this.queuedWrites = queuedWrites;
    }

    /** Starts on a thread of its own: one {@link #step} every retry period until closed. */
    public void start() {
        loop = RenewLoop.start("sharding", settings.retryPeriod(), () -> {
            step();
            return true;
        });
    }

    /** One period: read the members, change view if they changed (after the drain), renew the Lease with the view. */
    synchronized void step() {
        lapse();
        if (!renewal.any() && !drainedAll()) {
            return;
        }
        long attemptStart = ticker.nanos();
        SortedSet<String> target = null;
        try {
            SortedMap<String, MemberLease> live = membership.observe(leases.list(), ticker.nanos());
            liveMembers = live.size() + (live.containsKey(settings.identity()) ? 0 : 1);
            take(live);
            target = new TreeSet<>(live.keySet());
            target.add(settings.identity());
        } catch (ApiException e) {
            LOG.warn("{}: cannot list the members' Leases: {}", settings.identity(), e.getMessage());
        }
        SortedSet<String> view = claims.publishedView();
        if (target != null && (!target.equals(view) || claims.changing())) {
            long start = ticker.nanos();
            claims.restrict(target);
            try {
                if (claims.drain(settings.renewDeadline().dividedBy(2))) {
                    view = target;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (view == target) {
                release(target);
                if (renew(attemptStart, view)) {
                    handovers.incrementAndGet();
                    handoverNanos.addAndGet(ticker.nanos() - start);
                    LOG.info("{} acts on the members {} now", settings.identity(), target);
                    readAfterPublishing();
                    drop(view);
                }
            } else {
                LOG.warn("{}: syncs in flight of HPAs it hands over did not finish; publishing the members {} next period",
                        settings.identity(), target);
                renew(attemptStart, claims.publishedView());
            }
        } else {
            renew(attemptStart, view);
        }
        lapse();
    }

    /**
     * Once the renew deadline passed since the last renewal (its renewals failed, or this process was stopped, SIGSTOP
     * or a long pause), it claims nothing until it renewed, published and read again.
     */
    private void lapse() {
        if (renewal.overdue()) {
            renewal.forget();
            claims.stale();
            LOG.error("{} could not renew its Lease within {}: syncing nothing until it does", settings.identity(), settings.renewDeadline());
        }
    }

    /**
     * Whether no sync is in flight (up to half the renew deadline), as a replica whose Lease lapsed must find before it
     * renews: a renewal opens the write gate again, and a sync begun before the lapse (a process resumed after its Lease
     * expired) may no longer be this replica's, so its writes must have met the closed gate first. When some still run,
     * it does not renew this period.
     */
    private boolean drainedAll() {
        try {
            if (claims.drain(settings.renewDeadline().dividedBy(2))) {
                queuedWrites.flush(settings.renewDeadline().dividedBy(2)); // its events, recorded before: they meet the shut gate
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        LOG.warn("{}: syncs begun before its Lease lapsed still run: not renewing it this period", settings.identity());
        return false;
    }

    /**
     * After publishing a view (and the dues of what it drops): the queue's keys that view gives to others leave the
     * queue (their syncs in flight drained before the publish). A key it holds again later comes back through
     * {@link OwnedKeys#gained} and the handover.
     */
    private void drop(SortedSet<String> view) {
        WorkQueue q = queue;
        if (q == null) {
            return;
        }
        String me = settings.identity();
        List<HpaKey> lost = new ArrayList<>();
        q.forEachDue((key, due) -> {
            if (!me.equals(Ring.owner(key, view))) {
                lost.add(key);
            }
        });
        lost.forEach(share::lost);
    }

    /**
     * Reads the others' views again right after this replica published a new one, so that what it gained is claimed
     * now rather than a period later (the claim rule needs a read after the publish: this is one).
     */
    private void readAfterPublishing() {
        try {
            take(membership.observe(leases.list(), ticker.nanos()));
        } catch (ApiException e) {
            LOG.warn("{}: cannot list the members' Leases: {}", settings.identity(), e.getMessage());
        }
    }

    /**
     * Writes this replica's Lease with the view; a conflict or failure leaves it to the next period. Returns whether the
     * renewal counts ({@link LastRenewal#renewedInTime}): one answered late may have landed after the others counted this
     * Lease expired and claimed its HPAs, so it is a lapse, and this replica joins again as after one.
     */
    private boolean renew(long attemptStart, SortedSet<String> view) {
        try {
            MemberLease next = new MemberLease(settings.identity(), (int) settings.leaseDuration().toSeconds(), clock.instant(), view,
                    own == null ? null : own.resourceVersion(), handoverText());
            own = leases.write(next);
            if (!renewal.renewedInTime(attemptStart)) {
                claims.stale();
                LOG.error("{}: its Lease's renewal was answered after the renew deadline ({}): syncing nothing until it renews again",
                        settings.identity(), settings.renewDeadline());
                return false;
            }
            if (!view.equals(claims.publishedView())) {
                claims.published(view);
            }
            return true;
        } catch (ApiException e) {
            LOG.warn("{}: cannot renew its Lease: {}", settings.identity(), e.getMessage());
            try {
                own = leases.read(settings.identity()); // its resourceVersion, for the next attempt
            } catch (ApiException again) {
                own = null;
            }
            return false;
        }
    }

    /**
     * Takes in the live members (a list read after this replica's latest write) and hands the gained HPAs' places in the
     * schedule over to the queue before they are claimed.
     */
    private void take(SortedMap<String, MemberLease> live) {
        WorkQueue q = queue;
        if (q == null) {
            claims.observed(live);
            return;
        }
        Map<HpaKey, Long> own = new HashMap<>();
        List<HpaKey> gained = claims.observed(live, () -> {
            q.forEachDue(own::put);
            return share.all(); // the queue holds only owned keys: a gained one is among the informers'
        });
        List<MemberLease> seen = membership.seen();
        Map<HpaKey, long[]> handed = new HashMap<>();
        for (HpaKey key : gained) {
            long due = own.getOrDefault(key, Long.MIN_VALUE);
            long syncedBefore = Long.MIN_VALUE;
            for (MemberLease m : seen) {
                if (m.identity().equals(settings.identity())) {
                    continue;
                }
                long renewed = m.renewTime() == null ? clock.millis() : m.renewTime().toEpochMilli();
                Handover h = handoverOf(m, renewed);
                if (h == Handover.GARBLED) {
                    syncedBefore = Math.max(syncedBefore, renewed);
                } else if (h != null) {
                    long dueThere = h.dueOf(key);
                    due = Math.max(due, dueThere);
                    syncedBefore = dueThere == Long.MIN_VALUE && h.capped() ? Math.max(syncedBefore, h.releasedAt()) : syncedBefore;
                }
                if (!live.containsKey(m.identity()) && m.identity().equals(Ring.owner(key, m.view()))) {
                    syncedBefore = Math.max(syncedBefore, renewed + settings.renewDeadline().toMillis()); // expired holding it
                }
            }
            if (due != Long.MIN_VALUE || syncedBefore != Long.MIN_VALUE) {
                handed.put(key, new long[] {due, syncedBefore});
            }
        }
        // under the claims' lock, so that no worker's begin comes between a key's handover and its admission: one that took
        // the key once it was placed is admitted (a refusal would put it a slot or two later: 45 s unsynced on the real
        // node); one that had taken it before (its old due) is refused, and the queue puts it at the handed-over due
        synchronized (claims) {
            long at = ticker.nanos();
            gained.forEach(share::gained); // into the queue at its first due; a handed one is placed next
            List<HpaKey> takenBefore = new ArrayList<>();
            handed.forEach((key, d) -> {
                if (q.handOver(key, d[0], d[1])) {
                    takenBefore.add(key);
                }
            });
            claims.admit(takenBefore, ticker.nanos() + 1);
            claims.admit(gained, at);
        }
    }

    /** A member's handover, parsed once per text; one released after its Lease's renew time is not believed. */
    private Handover handoverOf(MemberLease m, long renewed) {
        Map.Entry<String, Handover> known = handedOver.get(m.identity());
        if (m.handover() == null) {
            return null;
        }
        if (known == null || !known.getKey().equals(m.handover())) {
            Handover h = Handover.parse(m.handover());
            known = Map.entry(m.handover(), h != null && h.releasedAt() > renewed ? Handover.GARBLED : h);
            handedOver.put(m.identity(), known);
        }
        return known.getValue();
    }

    /**
     * Before the Lease update that publishes {@code to}: the dues of the HPAs that its current view gives this replica
     * and {@code to} does not, with those still to come of the handover published before (a gaining member may not have
     * read it yet). Dues that passed a lease duration ago are left out: they hold nothing back.
     */
    private void release(SortedSet<String> to) {
        WorkQueue q = queue;
        long now = clock.millis();
        long lease = settings.leaseDuration().toMillis();
        if (q == null) {
            return;
        }
        SortedSet<String> from = own == null ? new TreeSet<>() : own.view();
        Map<Integer, Long> dues = new HashMap<>();
        boolean[] capped = {handover != null && now < handoverUntil && handover.capped()};
        if (handover != null && now < handoverUntil) {
            dues.putAll(handover.dues());
        }
        String me = settings.identity();
        q.forEachDue((key, due) -> {
            if (due >= now - lease && me.equals(Ring.owner(key, from)) && !me.equals(Ring.owner(key, to))) {
                if (due > now + Handover.MAX_OFFSET_MILLIS) {
                    capped[0] = true; // beyond what an entry holds: the gaining member waits a period after the release
                } else {
                    dues.merge(Handover.hash(key), due, Math::max);
                }
            }
        });
        dues.values().removeIf(due -> due < now - lease);
        while (dues.size() > Handover.MAX_ENTRIES) {
            dues.remove(dues.keySet().iterator().next());
            capped[0] = true;
        }
        handover = new Handover(now, capped[0], dues);
        handoverText = handover.text();
        handoverUntil = handover.latest() + lease;
    }

    /** The handover to publish with the next write of the Lease: null once it can hold nothing back any more. */
    private String handoverText() {
        return handover != null && clock.millis() < handoverUntil ? handoverText : null;
    }

    /** Whether a write may start now: the last renewal is younger than the renew deadline (monotonic clock). */
    public boolean holdsFreshLease() {
        return renewal.fresh();
    }

    /** The longest one write may take: it must be over before the others could count this replica gone. */
    public Duration writeTimeout() {
        return settings.writeTimeout();
    }

    /** The live members this replica saw last (itself included). */
    public int members() {
        return liveMembers;
    }

    /** Changes of view this replica made, and their total duration (stop, drain, publish). */
    public long handovers() {
        return handovers.get();
    }

    public Duration handoverTime() {
        return Duration.ofNanos(handoverNanos.get());
    }

    /**
     * Stops and releases: the Lease is written with no view and a 1 s duration, so the others take over at once. Call
     * it once the workers stopped (nothing is in flight).
     */
    @Override
    public void close() {
        if (loop != null) {
            loop.stop(settings.renewDeadline());
        }
        synchronized (this) {
            renewal.forget();
            claims.stale();
            if (own == null) {
                return;
            }
            release(new TreeSet<>());
            try {
                leases.write(new MemberLease(settings.identity(), 1, clock.instant(), new TreeSet<>(), own.resourceVersion(), handoverText()));
                LOG.info("{} released its Lease", settings.identity());
            } catch (ApiException e) {
                LOG.warn("{} could not release its Lease: {}", settings.identity(), e.getMessage());
            }
        }
    }
}
