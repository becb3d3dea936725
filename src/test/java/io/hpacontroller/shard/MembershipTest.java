package io.hpacontroller.shard;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class MembershipTest {

    private final AtomicLong now = new AtomicLong();
    private final Membership membership = new Membership(now::get);

    private static MemberLease lease(String id, long renewedSecond) {
        return new MemberLease(id, 15, Instant.ofEpochSecond(renewedSecond), new TreeSet<>(), "rv" + renewedSecond);
    }

    private void at(long seconds) {
        now.set(TimeUnit.SECONDS.toNanos(seconds));
    }

    @Test
    void aMemberIsLiveUntilOneLeaseDurationAfterItsLeaseWasLastSeenChangingOnThisClock() {
        at(100);
        // renewTime far in the past (another clock): counts from when it was seen, not from what it says
        assertThat(membership.observe(List.of(lease("a", 1), lease("b", 1)), now.get()).keySet()).containsExactly("a", "b");
        at(110);
        assertThat(membership.observe(List.of(lease("a", 2), lease("b", 1)), now.get()).keySet()).containsExactly("a", "b");
        at(115);
        assertThat(membership.observe(List.of(lease("a", 2), lease("b", 1)), now.get()).keySet()).as("b unchanged for 15 s").containsExactly("a");
        at(124);
        assertThat(membership.live().keySet()).containsExactly("a");
        at(125);
        assertThat(membership.live()).isEmpty();
        assertThat(membership.observe(List.of(lease("a", 3), lease("b", 1)), now.get()).keySet()).as("renewed again").containsExactly("a");
    }

    @Test
    void aDeletedLeaseIsGoneAtOnce() {
        at(5);
        membership.observe(List.of(lease("a", 1), lease("b", 1)), now.get());
        assertThat(membership.observe(List.of(lease("a", 1)), now.get()).keySet()).containsExactly("a");
    }

    @Test
    void leaseNamesHoldOnlyWhatALeaseNameMay() {
        assertThat(MemberLease.leaseName("hpa-controller", "Node_4711")).isEqualTo("hpa-controller-shard-node-4711");
        assertThat(MemberLease.leaseName("hpa-controller", "pod-abc")).isEqualTo("hpa-controller-shard-pod-abc");
        assertThat(MemberLease.parseView(" a, b,,c ")).containsExactly("a", "b", "c");
        assertThat(MemberLease.viewText(MemberLease.parseView("c,a"))).isEqualTo("a,c");
    }
}
