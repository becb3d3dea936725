package io.hpacontroller.live;

import io.hpacontroller.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The work queue at the production ratio: a 15 s sync period on a manual ticker. New HPAs
 * ({@code addNow}) are synced at once, then at their slots; {@link PhasedCadenceTest} has the phases,
 * the first syncs after a start and the spread over the period.
 */
class WorkQueueTest {

    private static final Duration PERIOD = Duration.ofSeconds(15);
    private final ManualTime time = new ManualTime(Instant.parse("2026-03-01T12:00:00Z"));
    private final PhasedCadence cadence = new PhasedCadence(PERIOD, time, time);
    private final WorkQueue queue = new WorkQueue(time, cadence, 0);

    private void advance(Duration d) {
        time.advance(d);
    }

    /** How long until the key's next slot. */
    private Duration untilNextSlotOf(String key) {
        return Duration.ofNanos(cadence.slotAtOrBefore(key, time.nanos()) + PERIOD.toNanos() - time.nanos());
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
        queue.addNow("ns/a");
        queue.addNow("ns/a");
        queue.addNow("ns/b");
        assertThat(queue.depth()).isEqualTo(2);
        assertThat(next()).contains("ns/a");
        assertThat(next()).contains("ns/b");
        assertThat(next()).isEmpty();
        assertThat(queue.totalAdds()).isEqualTo(2);
    }

    @Test
    void aBacklogIsHandedOutAtTwiceTheKeysRateAndASpecChangeGoesFirst() {
        int keys = 150;
        for (int i = 0; i < keys; i++) {
            queue.addNow("ns/h-" + i);
        }
        int firstSyncs = 0;
        for (Optional<String> k = next(); k.isPresent(); k = next()) {
            queue.done(k.get());
            firstSyncs++;
        }
        assertThat(firstSyncs).as("new HPAs are not paced").isEqualTo(keys);

        advance(PERIOD.plusSeconds(5)); // the workers stalled: every key's slot passed
        assertThat(queue.depth()).isEqualTo(keys);
        List<String> handedOut = new ArrayList<>();
        for (Optional<String> k = next(); k.isPresent(); k = next()) {
            handedOut.add(k.get());
        }
        assertThat(handedOut).as("a burst of at most").hasSize(WorkQueue.BURST);

        queue.addNow("ns/changed");
        assertThat(next()).as("a spec change is not paced and goes first").contains("ns/changed");

        int perTwoSeconds = 0;
        for (int step = 0; step < 200; step++) {
            advance(Duration.ofMillis(10));
            for (Optional<String> k = next(); k.isPresent(); k = next()) {
                perTwoSeconds++;
            }
        }
        // 150 keys every 15 s are 10 a second on average; at most twice that
        assertThat(perTwoSeconds).isBetween(39, 40);

        advance(Duration.ofSeconds(6));
        int rest = 0;
        for (int step = 0; step < 1000 && next().isPresent(); step++) {
            rest++;
            advance(Duration.ofMillis(50));
        }
        assertThat(WorkQueue.BURST + perTwoSeconds + rest).as("every key handed out once").isEqualTo(keys);
    }

    @Test
    void aKeyIsDueAtItsNextSlotWhateverHappenedAndNotBefore() {
        queue.addNow("ns/a");
        assertThat(next()).contains("ns/a");
        Duration untilSlot = untilNextSlotOf("ns/a");
        advance(Duration.ofMillis(300)); // a slow sync, failed or not: the queue does not know and does not care
        queue.done("ns/a");
        advance(untilSlot.minusMillis(301));
        assertThat(next()).as("1 ms before its slot").isEmpty();
        advance(Duration.ofMillis(1));
        assertThat(next()).as("at its slot").contains("ns/a");
        assertThat(queue.totalRequeues()).isEqualTo(1);
    }

    @Test
    void overThreeMinutesAKeyIsSyncedOncePerPeriodAtItsPhase() {
        queue.addNow("ns/a");
        List<Long> syncedAt = new ArrayList<>();
        for (int tenth = 0; tenth < 1800; tenth++) {
            for (Optional<String> k = next(); k.isPresent(); k = next()) {
                syncedAt.add(time.nanos());
                queue.done(k.get());
                queue.add(k.get()); // the informer's resync, a sweep: never earlier
            }
            advance(Duration.ofMillis(100));
        }
        assertThat(syncedAt).hasSize(13); // the new HPA at once, then 12 slots in 180 s
        long phase = cadence.phase("ns/a");
        for (int i = 1; i < syncedAt.size(); i++) {
            long epochNanos = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli() * 1_000_000 + syncedAt.get(i);
            assertThat(Math.floorMod(epochNanos - phase, PERIOD.toNanos())).as("sync %d on its slot, within a step", i)
                    .isLessThan(Duration.ofMillis(100).toNanos());
            if (i > 1) {
                assertThat(syncedAt.get(i) - syncedAt.get(i - 1)).isBetween(PERIOD.minusMillis(100).toNanos(), PERIOD.plusMillis(100).toNanos());
            }
        }
    }

    @Test
    void aSyncThatStartedLateDoesNotPushTheNextOneBackAndOneMoreThanAPeriodLateSkipsASlot() {
        queue.addNow("ns/a");
        sync("ns/a");
        advance(untilNextSlotOf("ns/a").plusSeconds(5)); // the workers were busy: 5 s late
        sync("ns/a");
        Duration untilSlot = untilNextSlotOf("ns/a");
        assertThat(untilSlot).as("still due at its own slot").isEqualTo(Duration.ofSeconds(10));
        advance(untilSlot.plus(PERIOD).plusSeconds(1)); // more than a period late
        sync("ns/a");
        assertThat(next()).as("no catch-up for the slot it missed").isEmpty();
        assertThat(untilNextSlotOf("ns/a")).isEqualTo(Duration.ofSeconds(14));
    }

    @Test
    void addingASyncedKeyAgainNeverMakesItDueEarlier() {
        queue.addNow("ns/a");
        sync("ns/a");
        advance(Duration.ofSeconds(1));
        queue.add("ns/a");
        assertThat(next()).isEmpty();
        assertThat(queue.dueAt("ns/a")).contains(time.nanos() + untilNextSlotOf("ns/a").toNanos());
    }

    @Test
    void aSpecChangeIsSyncedAtOnceEvenWhileAWorkerHasTheKey() {
        queue.addNow("ns/a");
        sync("ns/a");
        advance(Duration.ofMillis(1));
        queue.addNow("ns/a");
        assertThat(next()).as("due at once").contains("ns/a");

        queue.addNow("ns/a"); // changed again while the worker has it
        assertThat(next()).as("a second worker must not get it").isEmpty();
        queue.done("ns/a");
        assertThat(next()).as("queued again once the first worker is done").contains("ns/a");
        queue.done("ns/a");
        assertThat(next()).isEmpty();
        advance(untilNextSlotOf("ns/a"));
        assertThat(next()).as("then at its slots again").contains("ns/a");
    }

    @Test
    void aKeyAddedBeforeTheQueueStartsWaitsForItsFirstSlot() {
        queue.add("ns/a");
        assertThat(queue.isTracked("ns/a")).isTrue();
        assertThat(queue.dueAt("ns/a")).as("not scheduled before the first worker asks").isEmpty();
        assertThat(next()).isEmpty();
        assertThat(queue.dueAt("ns/a")).contains(cadence.firstDue("ns/a", 0, 0));
        advance(untilNextSlotOf("ns/a"));
        assertThat(next()).contains("ns/a");
    }

    @Test
    void aRemovedKeyIsNotRequeuedByTheWorkerThatHadIt() {
        queue.addNow("ns/a");
        queue.addNow("ns/b");
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
        queue.addNow("ns/a");
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
        queue.addNow("ns/a");
        sync("ns/a");
        advance(untilNextSlotOf("ns/a").plusMillis(300));
        assertThat(queue.poll()).get().extracting(WorkQueue.Item::waitedNanos).isEqualTo(Duration.ofMillis(300).toNanos());
    }
}
