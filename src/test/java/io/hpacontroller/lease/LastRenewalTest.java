package io.hpacontroller.lease;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The last renewal that counted, on a manual monotonic clock with a 10 s renew deadline. */
class LastRenewalTest {

    private final AtomicLong now = new AtomicLong();
    private final LastRenewal renewal = new LastRenewal(now::get, Duration.ofSeconds(10));

    private void at(long seconds) {
        now.set(nanos(seconds));
    }

    private static long nanos(long seconds) {
        return Duration.ofSeconds(seconds).toNanos();
    }

    @Test
    void aRenewalCountsWhenAnsweredWithinTheRenewDeadlineOfTheLastOneThatCounted() {
        at(3);
        assertThat(renewal.renewedInTime(nanos(0))).as("joining: within 10 s of its own start").isTrue();
        at(9);
        assertThat(renewal.renewedInTime(nanos(8))).as("answered 9 s after the last one began").isTrue();
        at(17);
        assertThat(renewal.fresh()).as("fresh until 10 s after the start of the one that counted last, 8 s").isTrue();
        at(18);
        assertThat(renewal.fresh()).isFalse();
        assertThat(renewal.overdue()).isTrue();
    }

    @Test
    void aRenewalAnsweredAfterThatDeadlineIsALapseHoweverRecentlyItBegan() {
        at(0);
        renewal.renewed(nanos(0));
        at(10);
        assertThat(renewal.renewedInTime(nanos(9))).as("begun at 9 s, answered at 10 s: the one of 0 s had run out").isFalse();
        assertThat(renewal.fresh()).isFalse();
        assertThat(renewal.any()).isFalse();
        at(25);
        assertThat(renewal.renewedInTime(nanos(20))).as("the next joins afresh: within 10 s of its own start").isTrue();
        assertThat(renewal.fresh()).isTrue();
        renewal.forget();
        at(40);
        assertThat(renewal.renewedInTime(nanos(30))).as("joining, answered 10 s after its own start").isFalse();
    }
}
