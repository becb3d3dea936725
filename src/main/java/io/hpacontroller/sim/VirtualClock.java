package io.hpacontroller.sim;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Simulated time: a {@link Clock} that stands still until the simulation moves it. Simulation time 0 is
 * {@link #EPOCH}; the core sees the corresponding instants.
 */
public final class VirtualClock extends Clock {

    /** The wall-clock instant of simulation time 0. */
    public static final Instant EPOCH = Instant.parse("2026-01-05T00:00:00Z");

    private long now;

    /** @param start the simulation time to start at (negative while the model warms up) */
    public VirtualClock(long start) {
        this.now = start;
    }

    /** Simulation time in milliseconds. */
    public long now() {
        return now;
    }

    /** Moves to a simulation time; time never goes back. */
    public void advanceTo(long simulationMillis) {
        if (simulationMillis < now) {
            throw new IllegalArgumentException("time cannot go back from " + now + " to " + simulationMillis);
        }
        now = simulationMillis;
    }

    /** Epoch millis of a simulation time, as the core's timestamps are. */
    public static long epochMillis(long simulationMillis) {
        return EPOCH.toEpochMilli() + simulationMillis;
    }

    @Override
    public long millis() {
        return epochMillis(now);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the simulation runs in UTC");
    }
}
