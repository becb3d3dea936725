package io.hpacontroller.live;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The work queue at the production ratio: a 15 s sync period on a manual ticker. */
class WorkQueueTest {

    private static final Duration PERIOD = Duration.ofSeconds(15);
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final WorkQueue queue = new WorkQueue(now::get, WorkQueue.Cadence.every(PERIOD));

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    private Optional<String> next() {
        return queue.poll().map(WorkQueue.Item::key);
    }

    /** Takes the key, "syncs" it and hands it back. */
    private void sync(String key) {
        assertThat(next()).contains(key);
        queue.done(key);
    }

    @Test
    void aKeyIsQueuedOnceHoweverOftenItIsAdded() {
        queue.add("ns/a");
        queue.add("ns/a");
        queue.add("ns/b");
        assertThat(queue.depth()).isEqualTo(2);
        assertThat(next()).contains("ns/a");
        assertThat(next()).contains("ns/b");
        assertThat(next()).isEmpty();
        assertThat(queue.totalAdds()).isEqualTo(2);
    }

    @Test
    void aKeyIsDueOnePeriodAfterItsLastSyncStartedWhateverHappened() {
        queue.add("ns/a");
        assertThat(next()).contains("ns/a");
        advance(Duration.ofSeconds(4)); // a slow sync, failed or not: the queue does not know and does not care
        queue.done("ns/a");
        advance(Duration.ofMillis(10_999));
        assertThat(next()).as("14.999 s after the sync started").isEmpty();
        advance(Duration.ofMillis(1));
        assertThat(next()).as("15 s after the sync started").contains("ns/a");
        assertThat(queue.totalRequeues()).isEqualTo(1);
    }

    @Test
    void overThreeMinutesAKeyIsSyncedOncePerPeriod() {
        queue.add("ns/a");
        List<Long> syncedAt = new ArrayList<>();
        for (int second = 0; second < 180; second++) {
            for (Optional<String> k = next(); k.isPresent(); k = next()) {
                syncedAt.add((long) second);
                queue.done(k.get());
                queue.add(k.get()); // the informer's resync, a sweep: never earlier
            }
            advance(Duration.ofSeconds(1));
        }
        assertThat(syncedAt).containsExactly(0L, 15L, 30L, 45L, 60L, 75L, 90L, 105L, 120L, 135L, 150L, 165L);
    }

    @Test
    void addingASyncedKeyAgainNeverMakesItDueEarlier() {
        queue.add("ns/a");
        sync("ns/a");
        advance(Duration.ofSeconds(1));
        queue.add("ns/a");
        assertThat(next()).isEmpty();
        assertThat(queue.dueAt("ns/a")).contains(now.get() + Duration.ofSeconds(14).toNanos());
    }

    @Test
    void aSpecChangeIsSyncedAtOnceEvenWhileAWorkerHasTheKey() {
        queue.add("ns/a");
        sync("ns/a");
        advance(Duration.ofSeconds(2));
        queue.addNow("ns/a");
        assertThat(next()).as("due at once").contains("ns/a");

        queue.addNow("ns/a"); // changed again while the worker has it
        assertThat(next()).as("a second worker must not get it").isEmpty();
        queue.done("ns/a");
        assertThat(next()).as("queued again once the first worker is done").contains("ns/a");
        queue.done("ns/a");
        assertThat(next()).isEmpty();
        advance(PERIOD);
        assertThat(next()).as("then once per period again").contains("ns/a");
    }

    @Test
    void aRemovedKeyIsNotRequeuedByTheWorkerThatHadIt() {
        queue.add("ns/a");
        queue.add("ns/b");
        assertThat(next()).contains("ns/a");
        queue.remove("ns/a"); // deleted while it was synced
        queue.remove("ns/b");
        queue.done("ns/a");
        assertThat(queue.isTracked("ns/a")).isFalse();
        assertThat(queue.isTracked("ns/b")).isFalse();
        advance(PERIOD.multipliedBy(2));
        assertThat(next()).isEmpty();
    }

    @Test
    void anHpaCreatedAgainWhileTheDeletedOneIsSyncedIsDueWhenThatSyncEnds() {
        queue.add("ns/a");
        assertThat(next()).contains("ns/a");
        queue.remove("ns/a");
        queue.add("ns/a");
        assertThat(next()).isEmpty();
        queue.done("ns/a");
        assertThat(next()).contains("ns/a");
    }

    @Test
    void shutDownReleasesWaitingWorkers() throws Exception {
        Thread t = new Thread(queue::shutDown);
        t.start();
        assertThat(queue.take(Duration.ofSeconds(10))).isEmpty();
        t.join();
        queue.add("ns/a");
        assertThat(queue.depth()).isZero();
    }

    @Test
    void reportsHowLongAKeyWaitedAfterItWasDue() {
        queue.add("ns/a");
        sync("ns/a");
        advance(PERIOD.plusMillis(300));
        assertThat(queue.poll()).get().extracting(WorkQueue.Item::waitedNanos).isEqualTo(Duration.ofMillis(300).toNanos());
    }
}
