package io.hpacontroller.controller;

import io.hpacontroller.core.cadence.FreshSlots;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each HPA is synced once per period at a phase of its own, so the syncs of many HPAs (and the
 * metrics queries they make) are spread evenly over the period instead of arriving in one burst
 * (kubernetes/kubernetes#118788).
 *
 * <p>An HPA's slots are the instants {@code phase + k x period} after the Unix epoch, its phase a fixed
 * hash of its key ("namespace/name"): the same after a restart and on every replica, so a new leader
 * syncs each HPA when the old one would have, on the wall clock. The queue measures time on a
 * monotonic ticker; the two are tied once, when the cadence is made.
 *
 * <ul>
 *   <li>After a sync, the HPA is due at its next slot that is at least a period after that sync was due:
 *       after a sync at its slot, the next slot; after one off its slots (its first, at its creation; the
 *       pick-up of an edit; a first sync moved by the start-up's catch-up) the slot after the next when the
 *       next is closer than a period. No two syncs of an HPA are due closer than its period. A sync that
 *       started late (the workers were busy) does not push the later ones back, and a sync that started
 *       more than a period late skips the slots it missed rather than catching up in a burst. Each HPA is
 *       synced at most once between two of its slots.</li>
 *   <li>The first sync of an HPA that existed when the process started ({@link #firstDue}): at its
 *       slot in the first period after the process started. The slots that passed while the process
 *       was starting (before the workers took their first key) are spread over the rest of that
 *       period, so every HPA is synced once within one period of the process start. A process that
 *       started a period or more before its workers (a standby that took over) syncs each HPA at its
 *       next slot.</li>
 * </ul>
 * The period is the flag's, or an HPA's own (the HPA's sync-period control, which the queue hands over with its
 * key: {@link #keepPeriod}, kept until the key is removed); the phase is then within that period.
 */
public final class PhasedCadence implements WorkQueue.Cadence {

    private final long period;
    /** The period (nanoseconds) of each key whose own differs from {@link #period}. */
    private final Map<String, Long> ownPeriods = new ConcurrentHashMap<>();
    /** Nanoseconds since the epoch minus ticker nanoseconds. */
    private final long epochOffset;

    /** @param period the period of every key that has none of its own */
    public PhasedCadence(Duration period, Clock clock, Ticker ticker) {
        this.period = period.toNanos();
        if (this.period <= 0) {
            throw new IllegalArgumentException("the sync period must be positive, got " + period);
        }
        Instant now = clock.instant();
        this.epochOffset = now.getEpochSecond() * 1_000_000_000L + now.getNano() - ticker.nanos();
    }

    @Override
    public void keepPeriod(String key, Duration own) {
        if (own == null || own.toNanos() == period) {
            ownPeriods.remove(key);
        } else {
            ownPeriods.put(key, own.toNanos());
        }
    }

    @Override
    public void forget(String key) {
        ownPeriods.remove(key);
    }

    /** Keys with a period of their own. */
    int ownPeriods() {
        return ownPeriods.size();
    }

    @Override
    public long period(String key) {
        return ownPeriods.getOrDefault(key, period);
    }

    /** When within each period the key's slots fall: nanoseconds after each multiple of the period since the epoch. */
    public long phase(String key) {
        return Math.floorMod(FreshSlots.hash(key), period(key));
    }

    /** The key's latest slot at or before ticker time {@code t}. */
    long slotAtOrBefore(String key, long t) {
        return t - Math.floorMod(t + epochOffset - phase(key), period(key));
    }

    @Override
    public long nextDue(String key, long dueAt, long startedAt) {
        long p = period(key);
        long slotAfterStart = slotAtOrBefore(key, startedAt) + p;
        long firstSlotAPeriodAfterDue = slotAtOrBefore(key, dueAt + p - 1) + p;
        return Math.max(slotAfterStart, firstSlotAPeriodAfterDue);
    }

    @Override
    public long firstDue(String key, long begunAt, long processStart) {
        long p = period(key);
        long startingUp = begunAt - processStart;
        long next = slotAtOrBefore(key, begunAt - 1) + p;
        if (startingUp <= 0 || startingUp >= p) {
            return next;
        }
        long slot = slotAtOrBefore(key, processStart - 1) + p; // the key's slot in the first period of the process
        if (slot >= begunAt) {
            return slot;
        }
        // missed while starting: [processStart, begunAt) is spread over [begunAt, processStart + period)
        return begunAt + (long) ((double) (slot - processStart) / startingUp * (p - startingUp));
    }

    /** The missed slots of {@link #firstDue}, {@code [processStart, begunAt)}, fall in {@code [begunAt, processStart + period)}. */
    @Override
    public double catchUp(long period, long begunAt, long processStart, long now) {
        long startingUp = begunAt - processStart;
        return startingUp > 0 && startingUp < period && now < processStart + period ? (double) period / (period - startingUp) : 1;
    }
}
