package io.hpacontroller.testing;

import io.hpacontroller.controller.Ticker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** Time that moves only when a test moves it: a wall clock and a monotonic ticker that advance together. */
public final class ManualTime extends Clock implements Ticker {

    private final Instant start;
    private final AtomicLong elapsedNanos = new AtomicLong();

    public ManualTime(Instant start) {
        this.start = start;
    }

    public void advance(Duration d) {
        elapsedNanos.addAndGet(d.toNanos());
    }

    /** Time since the start. */
    public Duration elapsed() {
        return Duration.ofNanos(elapsedNanos.get());
    }

    @Override
    public long nanos() {
        return elapsedNanos.get();
    }

    @Override
    public Instant instant() {
        return start.plusNanos(elapsedNanos.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
