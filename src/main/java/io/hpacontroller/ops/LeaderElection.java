package io.hpacontroller.ops;

import io.hpacontroller.controller.Ticker;
import io.hpacontroller.lease.LastRenewal;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.lease.RenewLoop;
import io.hpacontroller.ops.LeaseStore.LeaderRecord;
import io.hpacontroller.ops.LeaseStore.LeaseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Leader election on a coordination.k8s.io Lease, as client-go's {@code leaderelection} package does it
 * for kube-controller-manager: every retry period the instance reads the Lease and, when it is free,
 * expired or its own, writes it back (guarded by its resourceVersion) with itself as the holder. A
 * standby considers a Lease expired one lease duration after it last saw the Lease change, on its own
 * monotonic clock.
 *
 * <p>The leader keeps the time of its last successful renewal (the start of the attempt, on a monotonic
 * clock): it {@linkplain #holdsFreshLease holds a fresh lease} while that is younger than the renew
 * deadline, and every write is fenced on that. A renewal counts however late its answer: a standby takes
 * over only by writing this Lease, guarded by its resourceVersion, so a renewal that succeeded proves that
 * nobody took over (the sharding's members never write each other's Leases: they need
 * {@code LastRenewal.renewedInTime}). When it cannot renew within the renew deadline, or sees another
 * holder, it has lost the lease for good: {@code onLostLease} runs once and the election ends
 * (kube-controller-manager exits then, and so does {@code run}: the pod restarts as a standby).
 * Closing releases a held lease (holder "", duration 1 s) so a standby takes over at once.
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

    private final LeaseStore store;
    private final LeaseSettings settings;
    private final Clock clock;
    private final Ticker ticker;
    private final Runnable onStartedLeading;
    private final Runnable onLostLease;

    /** The record as last read or written, and when (ticker) it was first seen with that content. */
    private LeaderRecord observed;
    private long observedAt;
    private volatile boolean leading;
    private final LastRenewal renewal;
    private boolean over;
    private volatile boolean closed;
    private RenewLoop loop;

    /**
     * @param clock            wall-clock time written into the Lease (acquireTime, renewTime)
     * @param ticker           monotonic time for expiry, renewal and the write fence
     * @param onStartedLeading called once, on the election thread, when this instance acquires the lease
     * @param onLostLease      called once, on the election thread, when this instance lost the lease
     */
    LeaderElection(LeaseStore store, LeaseSettings settings, Clock clock, Ticker ticker, Runnable onStartedLeading, Runnable onLostLease) {
        this.store = Objects.requireNonNull(store);
        this.settings = Objects.requireNonNull(settings);
        this.clock = Objects.requireNonNull(clock);
        this.ticker = Objects.requireNonNull(ticker);
        this.onStartedLeading = Objects.requireNonNull(onStartedLeading);
        this.onLostLease = Objects.requireNonNull(onLostLease);
        this.renewal = new LastRenewal(ticker, settings.renewDeadline());
    }

    /** Starts campaigning on a thread of its own: one {@link #step} every retry period until the election is over. */
    public void start() {
        loop = RenewLoop.start("leader-election", settings.retryPeriod(), this::step);
    }

    /**
     * One attempt to acquire or renew the lease, then the deadline check. Returns false when the election
     * is over (the lease was lost, or the election closed).
     */
    synchronized boolean step() {
        if (over || closed) {
            return false;
        }
        long attemptStart = ticker.nanos();
        boolean held = tryAcquireOrRenew(attemptStart);
        if (held) {
            renewal.renewed(attemptStart);
            if (!leading) {
                leading = true;
                LOG.info("{} became the leader (lease {}/{})", settings.identity(), settings.namespace(), settings.name());
                onStartedLeading.run();
            }
            return true;
        }
        if (leading) {
            boolean takenOver = observed != null && !observed.holder().isEmpty() && !observed.holder().equals(settings.identity());
            if (takenOver || !renewal.fresh()) {
                leading = false;
                over = true;
                LOG.error("{} lost the lease {}/{} ({}): stopping", settings.identity(), settings.namespace(), settings.name(),
                        takenOver ? observed.holder() + " holds it" : "not renewed within " + settings.renewDeadline());
                onLostLease.run();
                return false;
            }
        }
        return true;
    }

    /** client-go's tryAcquireOrRenew: whether this instance holds the lease after this attempt. */
    private boolean tryAcquireOrRenew(long now) {
        Instant wallNow = clock.instant();
        int duration = (int) settings.leaseDuration().toSeconds();
        try {
            LeaderRecord current = store.get();
            if (current == null) {
                observe(store.create(new LeaderRecord(settings.identity(), duration, wallNow, wallNow, 0, null)), now);
                return true;
            }
            if (!current.sameAs(observed)) {
                if (observed == null || !current.holder().equals(observed.holder())) {
                    LOG.info("the leader is now {}", current.holder().isEmpty() ? "nobody" : current.holder());
                }
                // seen when the answer came (as client-go): a renewal made while the read was on its way
                // counts from then, not from before the read
                observe(current, ticker.nanos());
            }
            boolean mine = current.holder().equals(settings.identity());
            long expiresAt = observedAt + Duration.ofSeconds(current.leaseDurationSeconds()).toNanos();
            if (!current.holder().isEmpty() && !mine && expiresAt > now) {
                return false;
            }
            LeaderRecord next = new LeaderRecord(settings.identity(), duration, mine ? current.acquireTime() : wallNow, wallNow,
                    mine ? current.transitions() : current.transitions() + 1, current.resourceVersion());
            observe(store.update(next), now);
            return true;
        } catch (LeaseException e) {
            LOG.warn("{}: {}", settings.identity(), e.getMessage());
            return false;
        }
    }

    private void observe(LeaderRecord record, long now) {
        observed = record;
        observedAt = now;
    }

    /** Whether this instance leads (for the leader gauge). */
    public boolean isLeading() {
        return leading;
    }

    /**
     * Whether a write may start now: this instance leads and its last successful renewal is younger than
     * the renew deadline, on the monotonic clock. False from the renew deadline on, even while the
     * election thread is stuck in a request.
     */
    public boolean holdsFreshLease() {
        return leading && renewal.fresh();
    }

    /** Stops campaigning and releases the lease if this instance holds it. */
    @Override
    public void close() {
        closed = true;
        if (loop != null) {
            loop.stop(settings.renewDeadline());
        }
        release();
    }

    private synchronized void release() {
        if (!leading) {
            return;
        }
        leading = false;
        over = true;
        Instant now = clock.instant();
        try {
            try {
                store.update(new LeaderRecord("", 1, now, now, observed.transitions(), observed.resourceVersion()));
            } catch (LeaseException conflict) {
                // a renewal cut short by close()'s interrupt may have landed after all: release what is still ours
                LeaderRecord current = store.get();
                if (current == null || !current.holder().equals(settings.identity())) {
                    return;
                }
                store.update(new LeaderRecord("", 1, now, now, current.transitions(), current.resourceVersion()));
            }
            LOG.info("{} released the lease {}/{}", settings.identity(), settings.namespace(), settings.name());
        } catch (LeaseException e) {
            LOG.warn("{} could not release the lease: {}", settings.identity(), e.getMessage());
        }
    }
}
