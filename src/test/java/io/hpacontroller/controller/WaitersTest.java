package io.hpacontroller.controller;

import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The workers' wait in the queue: one of four idle workers waits for the next key's time, the others until signalled,
 * so a key coming due wakes one worker (before, every idle worker woke at every due and after every sync).
 */
class WaitersTest {

    private static final long A_MINUTE = TimeUnit.MINUTES.toNanos(1);
    private final ReentrantLock lock = new ReentrantLock();
    private final Waiters waiters = new Waiters(lock);
    /** How often a waiting worker asked for the next key's time: only the leader does. */
    private final AtomicInteger asked = new AtomicInteger();
    private final AtomicInteger woken = new AtomicInteger();
    private final AtomicBoolean stop = new AtomicBoolean();
    /** The next worker woken takes a key and leaves, with keys still queued. */
    private final AtomicBoolean takeOne = new AtomicBoolean();
    private final List<Thread> workers = new ArrayList<>();

    @AfterEach
    void stopWorkers() throws InterruptedException {
        stop.set(true);
        locked(waiters::all);
        for (Thread t : workers) {
            t.join(TimeUnit.MINUTES.toMillis(1));
        }
    }

    private void startWorkers(int n) {
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                lock.lock();
                try {
                    while (!stop.get()) {
                        waiters.await(A_MINUTE, () -> {
                            asked.incrementAndGet();
                            return A_MINUTE;
                        });
                        woken.incrementAndGet();
                        if (takeOne.compareAndSet(true, false)) {
                            waiters.leaving(true);
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }, "worker-" + i);
            workers.add(t);
            t.start();
        }
    }

    private boolean allWaiting() {
        return workers.stream().filter(Thread::isAlive).allMatch(t -> t.getState() == Thread.State.TIMED_WAITING) && !lock.isLocked();
    }

    private void locked(Runnable r) {
        lock.lock();
        try {
            r.run();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void oneIdleWorkerWaitsForTheNextKeysTimeAndASignalWakesOne() {
        startWorkers(4);
        await().atMost(Waits.STATE).until(this::allWaiting);
        assertThat(asked).as("only the leader asks when the next key is due").hasValue(1);

        locked(waiters::newLeader); // a key came due, or the next one's time moved earlier
        await().atMost(Waits.STATE).until(() -> asked.get() == 2 && allWaiting());
        assertThat(woken).as("one worker woke and became the leader").hasValue(1);
    }

    @Test
    void aWorkerTakingAKeyHandsTheWaitForTheNextOneToAnother() {
        startWorkers(3);
        await().atMost(Waits.STATE).until(this::allWaiting);
        takeOne.set(true);

        locked(waiters::newLeader); // a key came due: one worker wakes and takes it
        await().atMost(Waits.STATE).until(() -> asked.get() == 2 && allWaiting());
        assertThat(woken).as("the one that took the key, and the one that waits for the next key's time now").hasValue(2);
        assertThat(workers.stream().filter(Thread::isAlive)).hasSize(2);
    }
}
