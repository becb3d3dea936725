package io.hpacontroller.shard;

import io.hpacontroller.api.KubeApi;
import io.hpacontroller.controller.Ticker;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.lease.LastRenewal;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.lease.RenewLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
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
            claims.observed(live);
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
                if (renew(attemptStart, view)) {
                    handovers.incrementAndGet();
                    handoverNanos.addAndGet(ticker.nanos() - start);
                    LOG.info("{} acts on the members {} now", settings.identity(), target);
                    readAfterPublishing();
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
     * Reads the others' views again right after this replica published a new one, so that what it gained is claimed
     * now rather than a period later (the claim rule needs a read after the publish: this is one).
     */
    private void readAfterPublishing() {
        try {
            claims.observed(membership.observe(leases.list(), ticker.nanos()));
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
                    own == null ? null : own.resourceVersion());
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
            try {
                leases.write(new MemberLease(settings.identity(), 1, clock.instant(), new TreeSet<>(), own.resourceVersion()));
                LOG.info("{} released its Lease", settings.identity());
            } catch (ApiException e) {
                LOG.warn("{} could not release its Lease: {}", settings.identity(), e.getMessage());
            }
        }
    }
}
