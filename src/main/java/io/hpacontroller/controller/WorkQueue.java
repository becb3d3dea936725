package io.hpacontroller.controller;

import io.hpacontroller.controller.KeyState.LastSync;
import io.hpacontroller.controller.KeyState.State;
import io.hpacontroller.core.HpaKey;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The HPA work queue: a queue of keys ({@link HpaKey}), not objects, that hands each HPA to a worker
 * at most once per sync period, whatever the sync's outcome or what triggered it (upstream requeues every
 * HPA after every sync, and every HPA its informer delivers, through a rate limiter of one resync period;
 * there is no per-key error backoff). When a key is due is its {@link Cadence}'s to say
 * ({@link PhasedCadence}: at a phase of its own within the period).
 *
 * <ul>
 *   <li>A key waiting in the queue is there once, however often it is added.</li>
 *   <li>A key is given to one worker at a time. When the worker is {@link #done}, the key is due again
 *       at the time its cadence gives for a sync that was due and started when it was
 *       ({@link Cadence#nextDue}: never less than a period after it was due).</li>
 *   <li>{@link #add} (the informer saw an HPA that existed before) never makes a key due earlier than
 *       that. A key that has not been synced yet waits for the first worker to ask for work (the
 *       queue's start); then the cadence says when its first sync is due
 *       ({@link Cadence#firstDue}), given when the process started.</li>
 *   <li>{@link #addChanged} (a new HPA, or its spec or controls changed) makes a key this queue has not
 *       handed out yet due at once; any other at the next allowed time, one period after its last sync
 *       started (when that is earlier than its next due time: after a sync off its cadence, such as its
 *       first), or when the worker that has it is done, whichever is later. Changes coalesce: however
 *       many come, the key is synced once, from the HPA as it is then.</li>
 *   <li>{@link #forget} (the HPA was deleted) forgets a key; a worker that still has it does not
 *       requeue it.</li>
 *   <li>Keys due by their cadence are handed out at most {@link #PACE} times as fast as the keys' periods
 *       make them due on average (the sum of one over each key's period; in the first period of the
 *       process, {@link #PACE} times the rate its catch-up needs, {@link Cadence#catchUp}), or as fast as the
 *       cadence itself makes them due at its busiest when that is faster ({@link Cadence#peak}: the fresh
 *       cadence's syncs after one sample, all within its window), with bursts of up to a tenth of a second at
 *       that rate or {@link #BURST} keys. A backlog (the workers fell behind while the API answered slowly) is
 *       worked off at that rate, not in one burst on the metrics APIs. New keys ({@link #addChanged}) are not
 *       paced and go first.</li>
 *   <li>Idle workers wake for a key due by its cadence at the end of its due's {@link Coalesce} cell (1 % of its
 *       period, 134 ms at most), never before its due: keys due close together are synced in one burst.</li>
 *   <li>{@link #handOver} ({@code --sharding}: another replica synced it until now) makes a key due at the later of
 *       now and its previous holder's due; {@link #skipped} (another replica's key) keeps the due it had here.</li>
 * </ul>
 * Time comes from a {@link Ticker}; after moving a manual ticker, tests call {@link #wakeUp} (or take
 * what is due with {@link #poll}).
 */
public final class WorkQueue {

    /** How many times their average rate keys due by their cadence may be handed out at most. */
    public static final double PACE = 2.0;
    /** The least burst of keys due by their cadence handed out at once. */
    static final int BURST = 10;

    private final ReentrantLock lock = new ReentrantLock();
    private final Waiters waiters = new Waiters(lock);
    private final Ticker ticker;
    private final Cadence cadence;
    private final long processStart;
    /** The one state of each key the queue holds anything for (insertion order: the keys added before the start go in that order). */
    private final Map<HpaKey, KeyState> keys = new LinkedHashMap<>();
    /** Keys {@link State#READY}, handed out as {@link #PACE} allows. */
    private final ArrayDeque<KeyState> ready = new ArrayDeque<>();
    /** Keys {@link State#READY_NOW} (new: {@link #addChanged}), handed out first. */
    private final ArrayDeque<KeyState> readyNow = new ArrayDeque<>();
    /** Keys {@link State#SCHEDULED}, by due time. */
    private final PriorityQueue<Scheduled> schedule = new PriorityQueue<>();
    /** How fast keys due by their cadence are handed out. */
    private final SyncPace pace;
    /** When the first worker asked for work; null until then. */
    private Long begunAt;
    private boolean shuttingDown;
    private long adds;
    private long requeues;

    private record Scheduled(long at, KeyState key) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled o) {
            return Long.compare(at, o.at);
        }
    }

    /** A key a worker took (at ticker time {@code takenAt}), with how long it waited in the queue after it became due. */
    public record Item(HpaKey key, long waitedNanos, long takenAt) {
    }

    /**
     * @param processStart when the process started (ticker time), for the first syncs of the HPAs that
     *                     existed before it ({@link Cadence#firstDue})
     */
    public WorkQueue(Ticker ticker, Cadence cadence, long processStart) {
        this.ticker = ticker;
        this.cadence = cadence;
        this.processStart = processStart;
        this.pace = new SyncPace(cadence, processStart);
    }

    /** {@link #add(HpaKey)}, the key's period from now on being {@code period} (null: the cadence's own) until it is forgotten. */
    public void add(HpaKey key, Duration period) {
        cadence.keepPeriod(key, period); // a key already scheduled keeps its due time; its next one is by this period
        add(key);
    }

    /**
     * The informer saw an HPA that existed before: before the queue starts, it waits for the start;
     * a key never synced is then due at its first due time, any other at its next due time (never
     * earlier). Its period is the one it was last added with.
     */
    public void add(HpaKey key) {
        lock.lock();
        try {
            if (shuttingDown) {
                return;
            }
            KeyState k = keys.get(key);
            if (k == null) {
                k = new KeyState(key, State.BEFORE_START);
                keys.put(key, k);
                if (begunAt != null) {
                    scheduleAt(k, cadence.firstDue(key, begunAt, processStart));
                }
                return;
            }
            if (k.state == State.PROCESSING_FORGOTTEN) {
                k.changedMeanwhile = true; // deleted and created again while the old one was being synced
            } // else queued already, or a worker has it and requeues it when done
        } finally {
            lock.unlock();
        }
    }

    /** {@link #addChanged(HpaKey)}, the key's period from now on being {@code period}, as {@link #add(HpaKey, Duration)}. */
    public void addChanged(HpaKey key, Duration period) {
        cadence.keepPeriod(key, period);
        addChanged(key);
    }

    /**
     * A new HPA, or the HPA's spec or controls changed: a key never handed out is due at once (one handed over from
     * another replica and not handed out here yet keeps its handed-over due); any other at the
     * next allowed time ({@link #allowedAfter}) if its next due time is later, or when the worker that has it is done.
     * Its period is the one it was last added with.
     */
    public void addChanged(HpaKey key) {
        lock.lock();
        try {
            if (shuttingDown) {
                return;
            }
            KeyState k = keys.computeIfAbsent(key, kk -> new KeyState(kk, State.BEFORE_START));
            if (k.isReady()) {
                return;
            }
            if (k.isProcessing()) {
                k.changedMeanwhile = true;
                return;
            }
            if (k.last == null) { // never handed out here: due at once, unless handed over (due as handed, as allowedAfter)
                if (k.syncDue == KeyState.NO_DUE) {
                    unqueue(k);
                    enqueue(k, ticker.nanos(), State.READY_NOW);
                }
                return;
            }
            long allowed = allowedAfter(key, k.last);
            if (k.state != State.SCHEDULED || allowed < k.at) {
                unqueue(k);
                scheduleAt(k, allowed);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The earliest time the key may be synced again: one period after its last sync started, and not in the past. */
    private long allowedAfter(HpaKey key, LastSync last) {
        return Math.max(ticker.nanos(), last.started() + Math.max(1, cadence.period(key)));
    }

    /**
     * Forgets a key entirely (the HPA was deleted): its state, its period, its share of the pace. A worker that still
     * has it does not requeue it (unless it is added again meanwhile: then it is due at once when the worker is done).
     */
    public void forget(HpaKey key) {
        lock.lock();
        try {
            cadence.forget(key);
            KeyState k = keys.get(key);
            if (k == null) {
                return;
            }
            unqueue(k);
            pace.uncount(k.pacedPeriod);
            k.pacedPeriod = 0;
            if (k.isProcessing()) {
                k.state = State.PROCESSING_FORGOTTEN;
                k.last = null;
                k.changedMeanwhile = false;
            } else {
                keys.remove(key);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes a key out of the schedule or the ready queues, whichever holds it. */
    private void unqueue(KeyState k) {
        switch (k.state) {
            case SCHEDULED -> schedule.remove(new Scheduled(k.at, k));
            case READY -> ready.remove(k);
            case READY_NOW -> readyNow.remove(k);
            default -> { }
        }
    }

    /** Queues a key due since {@code dueSince}: {@link State#READY_NOW} ahead of the paced ones, or {@link State#READY}. */
    private void enqueue(KeyState k, long dueSince, State state) {
        ready(k, dueSince, state);
        waiters.newLeader();
    }

    /** {@link #enqueue} without waking a worker: the one promoting due keys takes one ({@link #take}). */
    private void ready(KeyState k, long dueSince, State state) {
        adds++;
        k.state = state;
        k.at = dueSince;
        (state == State.READY_NOW ? readyNow : ready).add(k);
    }

    private void scheduleAt(KeyState k, long at) {
        long period = Math.max(1, cadence.period(k.key));
        pace.count(k.pacedPeriod, period);
        k.pacedPeriod = period;
        if (at <= ticker.nanos()) {
            enqueue(k, at, State.READY);
            return;
        }
        k.state = State.SCHEDULED;
        k.at = at;
        schedule.add(new Scheduled(at, k));
        if (schedule.peek().key() == k || !ready.isEmpty()) { // the next key's time, or the pace (this period counted), may be earlier
            waiters.newLeader();
        }
    }

    /** Moves scheduled keys that are due into the ready queue. */
    private void promoteDue() {
        long now = ticker.nanos();
        while (!schedule.isEmpty() && schedule.peek().at() <= now) {
            Scheduled s = schedule.poll();
            ready(s.key(), s.at(), State.READY);
        }
    }

    /** Takes the next due key, waiting up to {@code timeout} (real time); empty when it passed or the queue is shutting down ({@link Waiters}). */
    public Optional<Item> take(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                Optional<Item> item = next();
                if (item.isPresent() || shuttingDown) {
                    return item;
                }
                long wait = deadline - System.nanoTime();
                if (wait <= 0) {
                    return Optional.empty();
                }
                waiters.await(wait, this::untilNext);
            }
        } finally {
            waiters.leaving(!(readyNow.isEmpty() && ready.isEmpty() && schedule.isEmpty()));
            lock.unlock();
        }
    }

    /** Takes the next key that is due now, without waiting. */
    public Optional<Item> poll() {
        return locked(this::next);
    }

    /** The first worker asks for work: the keys added before are scheduled for their first sync. */
    private void begin() {
        if (begunAt != null) {
            return;
        }
        long now = ticker.nanos();
        begunAt = now;
        for (KeyState k : keys.values()) {
            if (k.state == State.BEFORE_START) {
                scheduleAt(k, k.handedOver ? Math.max(now, k.syncDue) : cadence.firstDue(k.key, now, processStart));
                k.handedOver = false;
            }
        }
    }

    private Optional<Item> next() {
        begin();
        promoteDue();
        long now = ticker.nanos();
        KeyState k = readyNow.poll();
        if (k == null && !ready.isEmpty() && pace.take(now, begunAt)) {
            k = ready.poll();
        }
        if (k == null) {
            return Optional.empty();
        }
        long since = k.at;
        k.state = State.PROCESSING;
        k.last = new LastSync(since, now);
        return Optional.of(new Item(k.key, Math.max(0, now - since), now));
    }

    /** Ticker nanoseconds (at least 1) until a key may be handed out: the end of the next slot's {@link Coalesce} cell, or the pace's next key; MAX_VALUE if none. */
    private long untilNext() {
        long now = ticker.nanos();
        long until = Long.MAX_VALUE;
        if (!ready.isEmpty()) { // keys in it were scheduled, so the pace is positive
            until = pace.untilNext(now, begunAt);
        }
        if (!schedule.isEmpty()) {
            Scheduled head = schedule.peek();
            until = Math.min(until, Coalesce.wakeAt(head.at(), head.key().pacedPeriod) - now);
        }
        return Math.max(1, until);
    }

    /**
     * A worker finished a key, whatever the outcome: it is due again at its next due time (at the next allowed
     * time if it changed meanwhile), unless it was forgotten (at once if it was created again meanwhile).
     */
    public void done(HpaKey key) {
        finish(key, true);
    }

    /** A worker took the key but did not sync it (another replica's, {@link SyncClaims}): as {@link #done}, its schedule's due kept. */
    public void skipped(HpaKey key) {
        finish(key, false);
    }

    private void finish(HpaKey key, boolean synced) {
        lock.lock();
        try {
            KeyState k = keys.get(key);
            if (k == null || !k.isProcessing()) {
                return;
            }
            boolean edited = k.changedMeanwhile;
            k.changedMeanwhile = false;
            if (shuttingDown || k.state == State.PROCESSING_FORGOTTEN && !edited) {
                pace.uncount(k.pacedPeriod);
                keys.remove(key);
                return;
            }
            if (k.state == State.PROCESSING_FORGOTTEN) {
                enqueue(k, ticker.nanos(), State.READY_NOW);
                return;
            }
            requeues++;
            long next = cadence.nextDue(key, k.last.due(), k.last.started());
            if (synced) {
                k.syncDue = next;
            }
            if (k.handedOver) {
                k.handedOver = false;
                next = Math.max(ticker.nanos(), k.syncDue);
            }
            scheduleAt(k, edited ? Math.min(next, allowedAfter(key, k.last)) : next);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Handed over to this replica ({@code --sharding}): due at {@code dueEpochMillis} (its previous holder's schedule) and a
     * period after {@code syncedBeforeEpochMillis} (Long.MIN_VALUE: none), or now when that passed; then at its cadence.
     * Returns whether a worker holds the key, taken at its old due (it is put at the handed-over due once that worker is done).
     */
    public boolean handOver(HpaKey key, long dueEpochMillis, long syncedBeforeEpochMillis) {
        lock.lock();
        try {
            KeyState k = keys.get(key);
            if (k == null || shuttingDown || k.state == State.PROCESSING_FORGOTTEN) {
                return false;
            }
            long due = dueEpochMillis == Long.MIN_VALUE ? Long.MIN_VALUE : cadence.dueAt(key, dueEpochMillis);
            if (syncedBeforeEpochMillis != Long.MIN_VALUE) {
                due = Math.max(due, cadence.tickerAt(syncedBeforeEpochMillis) + cadence.period(key));
            }
            k.syncDue = due;
            if (k.isProcessing() || k.state == State.BEFORE_START && begunAt == null) {
                k.handedOver = true;
                return k.isProcessing();
            }
            unqueue(k);
            scheduleAt(k, Math.max(ticker.nanos(), due));
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Each key with the epoch ms its next sync is due here ({@link KeyState#syncDue}; Long.MIN_VALUE: none), under the lock. */
    public void forEachDue(ObjLongConsumer<HpaKey> action) {
        lock.lock();
        try {
            for (KeyState k : keys.values()) {
                action.accept(k.key, k.syncDue == KeyState.NO_DUE ? Long.MIN_VALUE : cadence.epochMillisAt(k.syncDue));
            }
        } finally {
            lock.unlock();
        }
    }

    /** Wakes waiting workers so they look at the schedule again (after a manual ticker moved). */
    public void wakeUp() {
        lock.lock();
        try {
            waiters.all();
        } finally {
            lock.unlock();
        }
    }

    /** Stops handing out keys; waiting workers return empty. */
    public void shutDown() {
        lock.lock();
        try {
            shuttingDown = true;
        } finally {
            lock.unlock();
        }
        wakeUp();
    }

    public boolean isShuttingDown() {
        return locked(() -> shuttingDown);
    }

    /** Keys due now (not the scheduled ones). */
    public int depth() {
        return locked(() -> {
            promoteDue();
            return ready.size() + readyNow.size();
        });
    }

    /** Whether the key is ready, scheduled, being processed, or waiting for the queue to start. */
    public boolean isTracked(HpaKey key) {
        return state(key).isPresent();
    }

    /** The state of the key, empty when the queue holds nothing for it. */
    Optional<State> state(HpaKey key) {
        return locked(() -> Optional.ofNullable(keys.get(key)).map(k -> k.state));
    }

    /** How many keys the queue holds a state for. */
    int size() {
        return locked(keys::size);
    }

    /** When the key is due next (ticker time), empty when it is not scheduled. */
    public Optional<Long> dueAt(HpaKey key) {
        return locked(() -> {
            KeyState k = keys.get(key);
            return k != null && (k.isReady() || k.state == State.SCHEDULED) ? Optional.of(k.at) : Optional.empty();
        });
    }

    /** Keys queued to be handed out, at once or later. */
    public long totalAdds() {
        return locked(() -> adds);
    }

    /** Keys requeued after a sync (client-go counts these rate-limited adds as retries). */
    public long totalRequeues() {
        return locked(() -> requeues);
    }

    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }
}
