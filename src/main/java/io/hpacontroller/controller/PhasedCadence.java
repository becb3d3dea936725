package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.cadence.FreshSlots;
import io.hpacontroller.core.cadence.MetricsPipelines;
import io.hpacontroller.core.trace.DecisionTrace;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each HPA is synced once per period at a phase of its own, so the syncs of many HPAs (and the
 * metrics queries they make) are spread evenly over the period instead of arriving in one burst
 * (kubernetes/kubernetes#118788).
 *
 * <p>An HPA's slots are the instants {@code phase + k x period} after the Unix epoch, its phase a fixed
 * hash of its key's wire form ("namespace/name"): the same after a restart and on every replica, so a new leader
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
 * key: {@link #keepPeriod}, kept until the queue forgets the key); the phase is then within that period.
 *
 * <p>The fresh cadence (issue 40, an HPA's {@code cadence: Fresh} control): after each sync ({@link #synced}) the
 * samples' timestamps teach {@link MetricsPipelines}; an HPA of the fresh cadence is then due at its pipeline's next
 * fresh slot ({@link FreshSlots#nextAfter}: still never less than a period after its last sync), and at its spread
 * phase while nothing is learned. The fresh syncs after one sample are spread over their pipeline's window
 * ({@link #windowMillis}): {@code --fresh-sync-spread}, widened with many HPAs on the pipeline so that they come at most
 * {@link WorkQueue#PACE} times as fast as all keys on average.
 */
public final class PhasedCadence implements Cadence {

    private final long period;
    /** The period (nanoseconds) of each key whose own differs from {@link #period}. */
    private final Map<HpaKey, Long> ownPeriods = new ConcurrentHashMap<>();
    /** Nanoseconds since the epoch minus ticker nanoseconds. */
    private final long epochOffset;
    private final Ticker ticker;
    /** What the syncs taught of the metrics pipelines. */
    private final MetricsPipelines pipelines = new MetricsPipelines();
    /** The keys the queue holds ({@link #keepPeriod} to {@link #forget}). */
    private final Set<HpaKey> keys = ConcurrentHashMap.newKeySet();
    /** The keys of the fresh cadence (those whose syncs read a pipeline's samples), each with that pipeline. */
    private final Map<HpaKey, String> fresh = new ConcurrentHashMap<>();
    /** How many keys of {@link #fresh} follow each pipeline. */
    private final Map<String, Integer> freshPerPipeline = new ConcurrentHashMap<>();
    /**
     * The least rate (keys a second) a pipeline's window is widened for: the queue hands out {@link WorkQueue#BURST} keys
     * at once anyway, and a lone HPA keeps the flag's window.
     */
    private static final double LEAST_WIDENED_RATE = WorkQueue.BURST;
    /** The least window {@link #peak} assumes (ms): without a window the fresh keys are still paced. */
    private static final long MIN_WINDOW_MILLIS = 100;
    /**
     * A pipeline's fresh keys probe its arc while it is not converged ({@link FreshSlots#next}) when they are at most this
     * many: the queue hands out {@link WorkQueue#BURST} keys at once anyway; more, spread over the period, narrow it
     * without moving.
     */
    static final int PROBING = WorkQueue.BURST;
    /** {@code --fresh-sync-spread}, ms. */
    private final long freshSpreadMillis;

    /** @param period the period of every key that has none of its own */
    public PhasedCadence(Duration period, Clock clock, Ticker ticker) {
        this(period, clock, ticker, Duration.ofSeconds(2));
    }

    /** @param freshSpread the window the fresh syncs after one sample are spread over */
    public PhasedCadence(Duration period, Clock clock, Ticker ticker, Duration freshSpread) {
        this.freshSpreadMillis = freshSpread.toMillis();
        this.period = period.toNanos();
        if (this.period <= 0) {
            throw new IllegalArgumentException("the sync period must be positive, got " + period);
        }
        Instant now = clock.instant();
        this.epochOffset = now.getEpochSecond() * 1_000_000_000L + now.getNano() - ticker.nanos();
        this.ticker = ticker;
    }

    @Override
    public void keepPeriod(HpaKey key, Duration own) {
        keys.add(key);
        if (own == null || own.toNanos() == period) {
            ownPeriods.remove(key);
        } else {
            ownPeriods.put(key, own.toNanos());
        }
    }

    @Override
    public void forget(HpaKey key) {
        ownPeriods.remove(key);
        keys.remove(key);
        follow(key, null);
        pipelines.forget(key);
    }

    /** Custom and external metrics served by one backend are one pipeline ({@link MetricsPipelines#servedBy}). */
    public void metricsServedBy(Map<String, String> backends) {
        pipelines.servedBy(backends);
    }

    /**
     * A sync of {@code key} ended now with {@code trace} (null: none); {@code freshCadence}: the HPA's cadence is Fresh.
     * A new sample it read was readable by now (its metrics were read during the sync, after the trace's time).
     */
    public void synced(HpaKey key, DecisionTrace trace, boolean freshCadence) {
        String pipeline = pipelines.observe(key, trace, epochMillis(ticker.nanos()));
        follow(key, freshCadence ? pipeline : null);
    }

    /** The key follows {@code pipeline} in the fresh cadence (null: it is not of the fresh cadence), counted per pipeline. */
    private void follow(HpaKey key, String pipeline) {
        fresh.compute(key, (k, before) -> {
            if (before != null && !before.equals(pipeline)) {
                freshPerPipeline.computeIfPresent(before, (p, n) -> n > 1 ? n - 1 : null);
            }
            if (pipeline != null && !pipeline.equals(before)) {
                freshPerPipeline.merge(pipeline, 1, Integer::sum);
            }
            return pipeline;
        });
    }

    /**
     * The window (ms) the fresh syncs after one sample of {@code pipeline} are spread over: {@code --fresh-sync-spread},
     * or wider when that would hand out the pipeline's keys faster than {@link WorkQueue#PACE} times the average rate of
     * all keys (and than {@link #LEAST_WIDENED_RATE} a second): at 1,000 HPAs of the 15 s period on one pipeline, 7.5 s
     * (133 a second) instead of 2 s (500 a second). A lone HPA keeps the flag's window.
     */
    long windowMillis(String pipeline) {
        int onPipeline = freshPerPipeline.getOrDefault(pipeline, 0);
        double meanPerSecond = Math.max(keys.size(), fresh.size()) * 1e9 / period;
        double perSecond = Math.max(WorkQueue.PACE * meanPerSecond, LEAST_WIDENED_RATE);
        return Math.max(freshSpreadMillis, (long) Math.ceil(onPipeline * 1000 / perSecond));
    }

    /** What is learned of the pipelines (for the learned-cadence gauge). */
    public MetricsPipelines pipelines() {
        return pipelines;
    }

    /** Keys with a period of their own. */
    int ownPeriods() {
        return ownPeriods.size();
    }

    @Override
    public long period(HpaKey key) {
        return ownPeriods.getOrDefault(key, period);
    }

    /** When within each period the key's slots fall: nanoseconds after each multiple of the period since the epoch. */
    public long phase(HpaKey key) {
        return Math.floorMod(key.stableHash(), period(key));
    }

    /** Ticker time {@code t} (ns) as epoch milliseconds. */
    private long epochMillis(long t) {
        return Math.floorDiv(t + epochOffset, 1_000_000L);
    }

    @Override
    public long epochMillisAt(long t) {
        return Math.floorDiv(t + epochOffset + 999_999L, 1_000_000L);
    }

    @Override
    public long tickerAt(long epochMillis) {
        return epochMillis * 1_000_000L - epochOffset;
    }

    @Override
    public long dueAt(HpaKey key, long epochMillis) {
        long t = tickerAt(epochMillis);
        long slot = slotAtOrBefore(key, t);
        return t - slot < 1_000_000L ? slot : t;
    }

    /** The key's latest slot at or before ticker time {@code t}. */
    long slotAtOrBefore(HpaKey key, long t) {
        return t - Math.floorMod(t + epochOffset - phase(key), period(key));
    }

    @Override
    public long nextDue(HpaKey key, long dueAt, long startedAt) {
        long p = period(key);
        String pipeline = fresh.get(key);
        if (pipeline != null && p >= 1_000_000L) {
            long pMillis = p / 1_000_000L;
            long dueMillis = epochMillis(dueAt);
            // the estimate as of now, not as of the key's due: the workers finish keys out of due order, and one due before
            // the last computation computed it again (SampleCadence: at most once a second), under the queue's lock
            OptionalLong slot = FreshSlots.next(pipelines.estimate(key, epochMillis(ticker.nanos()), pMillis), key.toString(), dueMillis, pMillis,
                    windowMillis(pipeline), freshSpreadMillis, freshPerPipeline.getOrDefault(pipeline, 0) <= PROBING);
            if (slot.isPresent()) {
                long next = Math.max(slot.getAsLong(), // a late start skips what it missed
                        FreshSlots.atOrAfter(epochMillis(startedAt) + 1, Math.floorMod(slot.getAsLong(), pMillis), pMillis));
                return next * 1_000_000L - epochOffset;
            }
        }
        long slotAfterStart = slotAtOrBefore(key, startedAt) + p;
        long firstSlotAPeriodAfterDue = slotAtOrBefore(key, dueAt + p - 1) + p;
        return Math.max(slotAfterStart, firstSlotAPeriodAfterDue);
    }

    @Override
    public long firstDue(HpaKey key, long begunAt, long processStart) {
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

    /**
     * The fresh keys of each pipeline may all be due within its window ({@link #windowMillis}) after one sample (their pods
     * on one node, stamped alike): {@code sum(keys of the pipeline / its window) + spread keys / period} over the keys'
     * average rate ({@link WorkQueue#PACE} with every key fresh on one pipeline; 7.5 with 10 keys, the period 15 s and the
     * window 2 s; each window taken as at least 100 ms).
     */
    @Override
    public double peak(int keys) {
        if (fresh.isEmpty() || keys <= 0) {
            return 1;
        }
        double perPeriod = 0;
        int freshKeys = 0;
        for (Map.Entry<String, Integer> e : freshPerPipeline.entrySet()) {
            perPeriod += (double) e.getValue() * period / (Math.max(windowMillis(e.getKey()), MIN_WINDOW_MILLIS) * 1_000_000L);
            freshKeys += e.getValue();
        }
        return Math.max(1, (perPeriod + Math.max(0, keys - freshKeys)) / keys);
    }

    /** The missed slots of {@link #firstDue}, {@code [processStart, begunAt)}, fall in {@code [begunAt, processStart + period)}. */
    @Override
    public double catchUp(long period, long begunAt, long processStart, long now) {
        long startingUp = begunAt - processStart;
        return startingUp > 0 && startingUp < period && now < processStart + period ? (double) period / (period - startingUp) : 1;
    }
}
