package io.hpacontroller.controller;

/**
 * How fast the {@link WorkQueue} hands out keys due by their cadence: at most {@link WorkQueue#PACE} times the
 * rate their periods make them due on average (the sum of one over each key's period), times the cadence's
 * {@link Cadence#catchUp} in the first period of the process, with bursts of up to a tenth of a
 * second at that rate or {@link WorkQueue#BURST} keys. Not thread-safe: the queue calls it under its lock.
 */
final class SyncPace {

    private final Cadence cadence;
    private final long processStart;
    /** How many keys are counted (each at the period it was last scheduled by, which its {@link KeyState} keeps), and the sum of their periods' inverses. */
    private int keys;
    private double keysPerNano;
    /** Keys due by their cadence that may be handed out now, as of ticker time {@link #allowanceAt}. */
    private double allowance = WorkQueue.BURST;
    private long allowanceAt;

    SyncPace(Cadence cadence, long processStart) {
        this.cadence = cadence;
        this.processStart = processStart;
    }

    /** Counts a key at {@code period} (nanoseconds, at least 1) that was counted at {@code before} (0: not counted). */
    void count(long before, long period) {
        if (before == 0) {
            keys++;
        }
        if (before != period) {
            keysPerNano += 1.0 / period - (before == 0 ? 0 : 1.0 / before);
        }
    }

    /** No longer counts a key counted at {@code period} (0: not counted): the HPA was deleted. */
    void uncount(long period) {
        if (period != 0) {
            keys--;
            keysPerNano = keys == 0 ? 0 : keysPerNano - 1.0 / period;
        }
    }

    /**
     * Whether a key due by its cadence may be handed out at ticker time {@code now}, and if so takes it from
     * the allowance.
     *
     * @param begunAt when the queue started, null before
     */
    boolean take(long now, Long begunAt) {
        allow(now, begunAt);
        if (allowance >= 1) {
            allowance -= 1;
            return true;
        }
        return false;
    }

    /** Ticker nanoseconds until the pace allows the next key (at least one key must be counted). */
    long untilNext(long now, Long begunAt) {
        return (long) Math.ceil((1 - allowance) / pace(now, begunAt));
    }

    /** Keys due by their cadence per nanosecond that may be handed out at ticker time {@code now}. */
    private double pace(long now, Long begunAt) {
        double peak = cadence.peak(keys);
        if (begunAt == null || keysPerNano <= 0) {
            return keysPerNano * Math.max(WorkQueue.PACE, peak);
        }
        long meanPeriod = (long) (keys / keysPerNano);
        return keysPerNano * Math.max(WorkQueue.PACE * cadence.catchUp(meanPeriod, begunAt, processStart, now), peak);
    }

    /** Adds to the allowance what the pace gave since it was last counted, up to a burst. */
    private void allow(long now, Long begunAt) {
        double pace = pace(now, begunAt);
        double burst = Math.max(WorkQueue.BURST, pace * 100_000_000L);
        allowance = Math.min(burst, allowance + Math.max(0, now - allowanceAt) * pace);
        allowanceAt = now;
    }
}
