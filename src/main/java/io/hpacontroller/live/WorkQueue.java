package io.hpacontroller.live;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The HPA work queue: a queue of keys ("namespace/name"), not objects.
 *
 * <ul>
 *   <li>A key waiting in the queue is there once, however often it is added.</li>
 *   <li>A key is given to one worker at a time: added while a worker has it, it waits until
 *       {@link #done} and is then queued again.</li>
 *   <li>{@link #addAfter} schedules a key; an earlier schedule wins over a later one, an immediate
 *       {@link #add} wins over both.</li>
 *   <li>{@link #retry} schedules a key after a per-key exponential backoff (capped); {@link #forget}
 *       resets it.</li>
 * </ul>
 * Time comes from a {@link Ticker}; after moving a manual ticker, tests call {@link #wakeUp}.
 */
public final class WorkQueue {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Ticker ticker;
    private final long baseBackoffNanos;
    private final long maxBackoffNanos;

    private final ArrayDeque<String> ready = new ArrayDeque<>();
    private final Set<String> queued = new HashSet<>();
    private final Set<String> processing = new HashSet<>();
    private final Set<String> dirty = new HashSet<>();
    private final Map<String, Long> scheduledAt = new HashMap<>();
    private final PriorityQueue<Scheduled> schedule = new PriorityQueue<>();
    private final Map<String, Integer> failures = new HashMap<>();
    private boolean shuttingDown;

    private long adds;
    private long retries;

    private record Scheduled(long at, String key) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled o) {
            return Long.compare(at, o.at);
        }
    }

    /** A key a worker took, with how long it waited in the queue since it became due. */
    public record Item(String key, long waitedNanos) {
    }

    public WorkQueue(Ticker ticker, Duration baseBackoff, Duration maxBackoff) {
        this.ticker = ticker;
        this.baseBackoffNanos = baseBackoff.toNanos();
        this.maxBackoffNanos = maxBackoff.toNanos();
    }

    private final Map<String, Long> readySince = new HashMap<>();

    /** Queues a key now. */
    public void add(String key) {
        lock.lock();
        try {
            if (shuttingDown) {
                return;
            }
            scheduledAt.remove(key);
            enqueue(key);
        } finally {
            lock.unlock();
        }
    }

    /** Queues a key after a delay, unless it is due sooner already. */
    public void addAfter(String key, Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            add(key);
            return;
        }
        lock.lock();
        try {
            if (shuttingDown || queued.contains(key)) {
                return;
            }
            long at = ticker.nanos() + delay.toNanos();
            Long existing = scheduledAt.get(key);
            if (existing != null && existing <= at) {
                return;
            }
            scheduledAt.put(key, at);
            schedule.add(new Scheduled(at, key));
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Queues a key after its backoff, which doubles with each failure since the last {@link #forget}. */
    public Duration retry(String key) {
        Duration delay;
        lock.lock();
        try {
            int n = failures.merge(key, 1, Integer::sum);
            retries++;
            long nanos = baseBackoffNanos;
            for (int i = 1; i < n && nanos < maxBackoffNanos; i++) {
                nanos *= 2;
            }
            delay = Duration.ofNanos(Math.min(nanos, maxBackoffNanos));
        } finally {
            lock.unlock();
        }
        addAfter(key, delay);
        return delay;
    }

    /** Clears a key's failure count. */
    public void forget(String key) {
        lock.lock();
        try {
            failures.remove(key);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets a key entirely: no schedule, no failures (the object was deleted). */
    public void remove(String key) {
        lock.lock();
        try {
            failures.remove(key);
            scheduledAt.remove(key);
            dirty.remove(key);
            if (queued.remove(key)) {
                ready.remove(key);
                readySince.remove(key);
            }
        } finally {
            lock.unlock();
        }
    }

    private void enqueue(String key) {
        if (processing.contains(key)) {
            dirty.add(key);
            return;
        }
        if (queued.add(key)) {
            adds++;
            ready.add(key);
            readySince.put(key, ticker.nanos());
            changed.signal();
        }
    }

    /** Moves scheduled keys that are due into the ready queue. */
    private void promoteDue() {
        long now = ticker.nanos();
        while (!schedule.isEmpty() && schedule.peek().at() <= now) {
            Scheduled s = schedule.poll();
            Long at = scheduledAt.get(s.key());
            if (at != null && at == s.at()) {
                scheduledAt.remove(s.key());
                enqueue(s.key());
            }
        }
    }

    /**
     * Takes the next key, waiting up to {@code timeout}. Empty when the timeout passed or the queue is
     * shutting down.
     */
    public Optional<Item> take(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                promoteDue();
                if (!ready.isEmpty()) {
                    String key = ready.poll();
                    queued.remove(key);
                    processing.add(key);
                    Long since = readySince.remove(key);
                    return Optional.of(new Item(key, since == null ? 0 : ticker.nanos() - since));
                }
                if (shuttingDown) {
                    return Optional.empty();
                }
                long wait = deadline - System.nanoTime();
                if (wait <= 0) {
                    return Optional.empty();
                }
                if (!schedule.isEmpty()) {
                    wait = Math.min(wait, Math.max(1, schedule.peek().at() - ticker.nanos()));
                }
                changed.awaitNanos(wait);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A worker finished a key; if it was added meanwhile, it is queued again. */
    public void done(String key) {
        lock.lock();
        try {
            processing.remove(key);
            if (dirty.remove(key)) {
                enqueue(key);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Wakes waiting workers so they look at the schedule again (after a manual ticker moved). */
    public void wakeUp() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Stops handing out keys; waiting workers return empty. */
    public void shutDown() {
        lock.lock();
        try {
            shuttingDown = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isShuttingDown() {
        lock.lock();
        try {
            return shuttingDown;
        } finally {
            lock.unlock();
        }
    }

    /** Keys ready now (not the scheduled ones). */
    public int depth() {
        lock.lock();
        try {
            promoteDue();
            return ready.size();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the key is ready, scheduled or being processed. */
    public boolean isTracked(String key) {
        lock.lock();
        try {
            return queued.contains(key) || scheduledAt.containsKey(key) || processing.contains(key) || dirty.contains(key);
        } finally {
            lock.unlock();
        }
    }

    public long totalAdds() {
        lock.lock();
        try {
            return adds;
        } finally {
            lock.unlock();
        }
    }

    public long totalRetries() {
        lock.lock();
        try {
            return retries;
        } finally {
            lock.unlock();
        }
    }

    /** Convenience for tests: waits a short while for the next key. */
    Optional<Item> poll() throws InterruptedException {
        return take(Duration.of(10, TimeUnit.MILLISECONDS.toChronoUnit()));
    }
}
