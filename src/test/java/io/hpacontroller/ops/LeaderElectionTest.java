package io.hpacontroller.ops;

import io.hpacontroller.api.WriteGate;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.ops.LeaseStore.LeaderRecord;
import io.hpacontroller.ops.LeaseStore.LeaseException;
import io.hpacontroller.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The lease loop on a manual clock, with kube-controller-manager's 15 s / 10 s / 2 s, against an in-memory Lease. */
class LeaderElectionTest {

    private static final Duration RETRY = Duration.ofSeconds(2);

    /** A Lease with the API server's rules: create fails when it exists, update fails unless at the same resourceVersion. */
    static final class FakeLease implements LeaseStore {
        LeaderRecord stored;
        int version;
        boolean unreachable;
        /** The next update is applied but its answer is lost (a request cut short by an interrupt). */
        boolean loseNextAnswer;
        /** Runs while the next get is on its way (a slow answer), before the record is read. */
        Runnable duringNextGet;
        /** Runs while the next update is on its way (an API server that answers late), before it is applied. */
        Runnable duringNextUpdate;

        @Override
        public synchronized LeaderRecord get() throws LeaseException {
            if (unreachable) {
                throw new LeaseException("connection refused");
            }
            if (duringNextGet != null) {
                Runnable r = duringNextGet;
                duringNextGet = null;
                r.run();
            }
            return stored;
        }

        @Override
        public synchronized LeaderRecord create(LeaderRecord r) throws LeaseException {
            if (unreachable || stored != null) {
                throw new LeaseException("already exists");
            }
            return store(r);
        }

        @Override
        public synchronized LeaderRecord update(LeaderRecord r) throws LeaseException {
            if (duringNextUpdate != null) {
                Runnable meanwhile = duringNextUpdate;
                duringNextUpdate = null;
                meanwhile.run();
            }
            if (unreachable || stored == null || !stored.resourceVersion().equals(r.resourceVersion())) {
                throw new LeaseException("the object has been modified");
            }
            LeaderRecord stored = store(r);
            if (loseNextAnswer) {
                loseNextAnswer = false;
                throw new LeaseException("interrupted");
            }
            return stored;
        }

        private LeaderRecord store(LeaderRecord r) {
            stored = new LeaderRecord(r.holder(), r.leaseDurationSeconds(), r.acquireTime(), r.renewTime(), r.transitions(), String.valueOf(++version));
            return stored;
        }

        /** Someone else writes the Lease (another instance, or an operator). */
        synchronized void holdBy(String holder, Instant at) {
            store(new LeaderRecord(holder, 15, at, at, stored == null ? 0 : stored.transitions() + 1, null));
        }
    }

    private final ManualTime time = new ManualTime(Instant.parse("2026-03-01T12:00:00Z"));
    private final FakeLease lease = new FakeLease();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger lost = new AtomicInteger();

    private LeaderElection election(String identity) {
        return new LeaderElection(lease, new LeaseSettings("ns", "hpa-controller", identity, Duration.ofSeconds(15),
                Duration.ofSeconds(10), RETRY), time, time, started::incrementAndGet, lost::incrementAndGet);
    }

    /** Steps the election every retry period for this long. */
    private void campaign(LeaderElection e, Duration d) {
        for (Duration t = Duration.ZERO; t.compareTo(d) < 0; t = t.plus(RETRY)) {
            time.advance(RETRY);
            e.step();
        }
    }

    @Test
    void acquiresAFreeLeaseAndRenewsItEveryRetryPeriod() {
        LeaderElection a = election("a");
        assertThat(a.step()).isTrue();
        assertThat(a.isLeading()).isTrue();
        assertThat(a.holdsFreshLease()).isTrue();
        assertThat(started).hasValue(1);
        assertThat(lease.stored.holder()).isEqualTo("a");
        assertThat(lease.stored.leaseDurationSeconds()).isEqualTo(15);

        campaign(a, Duration.ofMinutes(1));
        assertThat(lease.stored.renewTime()).isEqualTo(time.instant());
        assertThat(lease.stored.acquireTime()).as("still the first acquisition").isEqualTo(Instant.parse("2026-03-01T12:00:00Z"));
        assertThat(started).as("started leading once").hasValue(1);
        assertThat(lost).hasValue(0);
    }

    @Test
    void aStandbyTakesOverOneLeaseDurationAfterItLastSawTheLeaseChange() {
        lease.holdBy("a", time.instant());
        LeaderElection b = election("b");
        b.step();
        campaign(b, Duration.ofSeconds(14));
        assertThat(b.isLeading()).as("14 s after it first saw a's record").isFalse();
        assertThat(b.holdsFreshLease()).isFalse();
        campaign(b, Duration.ofSeconds(2));
        assertThat(b.isLeading()).as("16 s: a did not renew for a whole lease duration").isTrue();
        assertThat(lease.stored.holder()).isEqualTo("b");
        assertThat(lease.stored.transitions()).isEqualTo(1);
    }

    @Test
    void aStandbyCountsTheLeaseFromWhenItSawTheRenewalNotFromBeforeItsSlowRead() {
        lease.holdBy("a", time.instant());
        LeaderElection b = election("b");
        b.step();
        time.advance(RETRY);
        lease.duringNextGet = () -> {
            time.advance(Duration.ofSeconds(3)); // the read takes 3 s, and a renews meanwhile
            lease.holdBy("a", time.instant());
        };
        b.step();
        Instant renewed = lease.stored.renewTime();
        while (Duration.between(renewed, time.instant()).compareTo(Duration.ofSeconds(14)) < 0) {
            time.advance(Duration.ofMillis(500));
            b.step();
        }
        assertThat(b.isLeading()).as("14 s after a's last renewal").isFalse();
        campaign(b, Duration.ofSeconds(2));
        assertThat(b.isLeading()).as("16 s after a's last renewal").isTrue();
    }

    @Test
    void aStandbyDoesNotTakeOverWhileTheLeaderRenews() {
        lease.holdBy("a", time.instant());
        LeaderElection b = election("b");
        for (int i = 0; i < 30; i++) {
            time.advance(RETRY);
            lease.holdBy("a", time.instant()); // a renews
            b.step();
        }
        assertThat(b.isLeading()).isFalse();
        assertThat(started).hasValue(0);
    }

    @Test
    void writesAreFencedAtTheRenewDeadlineEvenWhenTheElectionThreadIsStuck() throws Exception {
        LeaderElection a = election("a");
        a.step();
        WriteGate gate = WriteGate.whileLeading(a::holdsFreshLease, Duration.ofSeconds(5));
        // no more steps: the election thread hangs in a request
        time.advance(Duration.ofMillis(9_999));
        gate.check();
        time.advance(Duration.ofMillis(1));
        assertThat(gate.isOpen()).isFalse();
        assertThatThrownBy(gate::check).hasMessageContaining("does not hold a fresh leader lease");
        assertThat(a.isLeading()).as("it has not noticed yet; the fence did").isTrue();
    }

    @Test
    void aLeaderThatCannotRenewLosesTheLeaseAtTheRenewDeadline() {
        LeaderElection a = election("a");
        a.step();
        lease.unreachable = true;
        campaign(a, Duration.ofSeconds(8));
        assertThat(a.isLeading()).as("8 s without a renewal").isTrue();
        assertThat(lost).hasValue(0);
        time.advance(RETRY);
        assertThat(a.step()).as("10 s: the election is over").isFalse();
        assertThat(a.isLeading()).isFalse();
        assertThat(a.holdsFreshLease()).isFalse();
        assertThat(lost).hasValue(1);

        lease.unreachable = false;
        campaign(a, Duration.ofMinutes(1));
        assertThat(a.isLeading()).as("it does not campaign again: the process exits").isFalse();
        assertThat(lost).hasValue(1);
    }

    @Test
    void aRenewalThatReachesTheLeaseAfterAStandbyTookItOverFails() {
        LeaderElection a = election("a");
        a.step();
        LeaderElection b = election("b");
        b.step();
        lease.duringNextUpdate = () -> campaign(b, Duration.ofSeconds(16)); // a's renewal of 2 s lands at 18 s
        time.advance(RETRY);
        a.step();
        assertThat(b.isLeading()).isTrue();
        assertThat(lease.stored.holder()).isEqualTo("b");
        assertThat(a.holdsFreshLease()).as("a standby takes over by writing the Lease: a late renewal meets its resourceVersion").isFalse();
        assertThat(lost).hasValue(1);
    }

    @Test
    void aLeaderThatSeesAnotherHolderLosesTheLeaseAtOnce() {
        LeaderElection a = election("a");
        a.step();
        time.advance(RETRY);
        lease.holdBy("intruder", time.instant());
        a.step();
        assertThat(a.isLeading()).isFalse();
        assertThat(a.holdsFreshLease()).isFalse();
        assertThat(lost).hasValue(1);
    }

    @Test
    void closingReleasesTheLeaseAndAStandbyTakesItAtOnce() {
        LeaderElection a = election("a");
        a.step();
        LeaderElection b = election("b");
        b.step();
        a.close();
        assertThat(lease.stored.holder()).isEmpty();
        assertThat(lease.stored.leaseDurationSeconds()).isEqualTo(1);
        assertThat(lost).as("a release is not a loss").hasValue(0);
        time.advance(RETRY);
        b.step();
        assertThat(b.isLeading()).isTrue();
    }

    @Test
    void aRenewalThatLandedUnseenDoesNotKeepTheLeaseFromBeingReleased() {
        LeaderElection a = election("a");
        a.step();
        lease.loseNextAnswer = true;
        time.advance(RETRY);
        a.step(); // renewed on the server, but this instance never saw the new resourceVersion
        a.close();
        assertThat(lease.stored.holder()).isEmpty();
        assertThat(lease.stored.leaseDurationSeconds()).isEqualTo(1);
    }

    @Test
    void aWriteFitsBetweenTheRenewDeadlineAndTheEndOfTheLease() {
        LeaseSettings s = new LeaseSettings("ns", "l", "a", Duration.ofSeconds(15), Duration.ofSeconds(10), RETRY);
        assertThat(s.writeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThatThrownBy(() -> new LeaseSettings("ns", "l", "a", Duration.ofSeconds(11), Duration.ofSeconds(10), RETRY))
                .hasMessageContaining("must exceed --leader-elect-renew-deadline by more than 1s");
    }
}
