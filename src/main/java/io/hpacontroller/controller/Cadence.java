package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;

import java.time.Duration;

/**
 * When a key of the {@link WorkQueue} is due (ticker times); every method takes the key, so each may have its own phase and
 * period. {@link PhasedCadence} is the one in use.
 */
public interface Cadence {

    /**
     * When the key is due again after a sync that was due at {@code dueAt} and started at {@code startedAt}
     * (later when the workers were busy): never less than a period after {@code dueAt}.
     */
    long nextDue(HpaKey key, long dueAt, long startedAt);

    /**
     * When the first sync of a key is due that was added before the queue started, or that existed
     * before the process did.
     *
     * @param begunAt      when the queue started (the first worker asked for work)
     * @param processStart when the process started
     */
    long firstDue(HpaKey key, long begunAt, long processStart);

    /** The key's period (nanoseconds): on average, it is due once per period. */
    long period(HpaKey key);

    /** From now on the key's period is {@code period} (null: the cadence's own), until {@link #forget}. */
    void keepPeriod(HpaKey key, Duration period);

    /** The key was forgotten (the HPA was deleted): its period goes too. */
    void forget(HpaKey key);

    /**
     * How many times as often as once per {@code period} keys are due at ticker time {@code now}, given
     * how {@link #firstDue} catches up the slots missed while the process started: 1 outside that catch-up.
     */
    double catchUp(long period, long begunAt, long processStart, long now);

    /**
     * How many times as often as their average rate the cadence itself makes {@code keys} keys due at its busiest
     * (1: evenly spread over their periods): the pace never holds back keys that arrive as the cadence schedules them.
     */
    default double peak(int keys) {
        return 1;
    }

    /** Ticker time {@code t} as epoch milliseconds, rounded up (a due handed over is never earlier). */
    long epochMillisAt(long t);

    /** Epoch milliseconds as ticker time. */
    long tickerAt(long epochMillis);

    /**
     * A due of the key handed over in epoch milliseconds as ticker time: the key's slot when it is less than a
     * millisecond after it (the due was that slot, rounded up), else {@link #tickerAt(long)}.
     */
    long dueAt(HpaKey key, long epochMillis);
}
