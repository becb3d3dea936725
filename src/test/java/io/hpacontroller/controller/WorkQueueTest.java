package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The work queue at the production ratio: a 15 s sync period on a manual ticker. New HPAs
 * ({@code addChanged}) are synced at once, then at their slots, never two syncs of a key closer than a
 * period; {@link PhasedCadenceTest} has the phases, the first syncs after a start and the spread over the period.
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
    private Duration untilNextSlotOf(HpaKey key) {
        return Duration.ofNanos(cadence.slotAtOrBefore(key, time.nanos()) + PERIOD.toNanos() - time.nanos());
    }

    /** How long until the key's first slot at least a period from now (the next one, or the one after). */
    private Duration untilSlotAPeriodOnOf(HpaKey key) {
        Duration next = untilNextSlotOf(key);
        return next.compareTo(PERIOD) < 0 ? next.plus(PERIOD) : next;
    }

    private Optional<HpaKey> next() {
        return queue.poll().map(WorkQueue.Item::key);
    }

    /** Takes the key, "syncs" it and hands it back. */
    private void sync(HpaKey key) {
        assertThat(next()).contains(key);
        queue.done(key);
    }

    @Test
    void aKeyHandedOverAtItsSlotIsSyncedThereAndThenAtEachNextSlot() {
        HpaKey key = key("ns/handed");
        queue.add(key);
        assertThat(next()).isEmpty(); // the queue starts
        Duration untilSlot = untilNextSlotOf(key);
        long slotMillis = cadence.epochMillisAt(time.nanos() + untilSlot.toNanos()); // its previous holder's next due, in ms
        queue.handOver(key, slotMillis, Long.MIN_VALUE);
        advance(untilSlot);
        sync(key);
        assertThat(untilNextSlotOf(key)).isEqualTo(PERIOD);
        assertThat(queue.dueAt(key)).contains(time.nanos() + PERIOD.toNanos());
    }

    @Test
    void aKeyGainedWithAHandedDueKeepsItWhenItsHpaChangesBeforeItsFirstSyncHere() {
        assertThat(next()).isEmpty(); // the queue starts
        advance(PERIOD.multipliedBy(3));
        HpaKey key = key("ns/gained");
        queue.add(key); // gained (--sharding): it enters this queue only now
        long dueMillis = cadence.epochMillisAt(time.nanos()) + 10_000; // its previous holder's next due
        queue.handOver(key, dueMillis, Long.MIN_VALUE);
        queue.addChanged(key); // its spec changed meanwhile (ShardingIT: synced 0.9 s after its previous holder without this)
        assertThat(next()).isEmpty();
        assertThat(queue.dueAt(key)).contains(time.nanos() + Duration.ofSeconds(10).toNanos());
        advance(Duration.ofSeconds(10));
        sync(key);
    }

    @Test
    void aKeyIsQueuedOnceHoweverOftenItIsAdded() {
        queue.addChanged(key("ns/a"));
        queue.addChanged(key("ns/a"));
        queue.addChanged(key("ns/b"));
        assertThat(queue.depth()).isEqualTo(2);
        assertThat(next()).contains(key("ns/a"));
        assertThat(next()).contains(key("ns/b"));
        assertThat(next()).isEmpty();
        assertThat(queue.totalAdds()).isEqualTo(2);
    }

    @Test
    void aBacklogIsHandedOutAtTwiceTheKeysRateAndANewKeyGoesFirst() {
        int keys = 150;
        for (int i = 0; i < keys; i++) {
            queue.addChanged(key("ns/h-" + i));
        }
        int firstSyncs = 0;
        for (Optional<HpaKey> k = next(); k.isPresent(); k = next()) {
            queue.done(k.get());
            firstSyncs++;
        }
        assertThat(firstSyncs).as("new HPAs are not paced").isEqualTo(keys);

        advance(PERIOD.multipliedBy(2).plusSeconds(5)); // the workers stalled: every key's slot a period on passed
        assertThat(queue.depth()).isEqualTo(keys);
        List<HpaKey> handedOut = new ArrayList<>();
        for (Optional<HpaKey> k = next(); k.isPresent(); k = next()) {
            handedOut.add(k.get());
        }
        assertThat(handedOut).as("a burst of at most").hasSize(WorkQueue.BURST);

        queue.addChanged(key("ns/new"));
        assertThat(next()).as("a new HPA is not paced and goes first").contains(key("ns/new"));

        int perTwoSeconds = 0;
        for (int step = 0; step < 200; step++) {
            advance(Duration.ofMillis(10));
            for (Optional<HpaKey> k = next(); k.isPresent(); k = next()) {
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
    void aNewKeyIsDueAgainAtItsFirstSlotAPeriodOnWhateverHappenedAndNotBefore() {
        queue.addChanged(key("ns/a"));
        assertThat(next()).contains(key("ns/a"));
        // its next slot is closer than a period on most runs (a phase of its own): the one after that
        Duration untilSlot = untilSlotAPeriodOnOf(key("ns/a"));
        assertThat(untilSlot).isBetween(PERIOD, PERIOD.multipliedBy(2));
        advance(Duration.ofMillis(300)); // a slow sync, failed or not: the queue does not know and does not care
        queue.done(key("ns/a"));
        advance(untilSlot.minusMillis(301));
        assertThat(next()).as("1 ms before its slot").isEmpty();
        advance(Duration.ofMillis(1));
        assertThat(next()).as("at its slot").contains(key("ns/a"));
        assertThat(queue.totalRequeues()).isEqualTo(1);
    }

    @Test
    void overThreeMinutesAKeyIsSyncedOncePerPeriodAtItsPhase() {
        queue.addChanged(key("ns/a"));
        List<Long> syncedAt = new ArrayList<>();
        for (int tenth = 0; tenth < 1800; tenth++) {
            for (Optional<HpaKey> k = next(); k.isPresent(); k = next()) {
                syncedAt.add(time.nanos());
                queue.done(k.get());
                queue.add(k.get()); // the informer's resync, a sweep: never earlier
            }
            advance(Duration.ofMillis(100));
        }
        // the new HPA at once, then 11 slots in 180 s: its first slot is closer than a period to its creation, skipped
        assertThat(syncedAt).hasSize(12);
        long phase = cadence.phase(key("ns/a"));
        for (int i = 1; i < syncedAt.size(); i++) {
            long epochNanos = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli() * 1_000_000 + syncedAt.get(i);
            assertThat(Math.floorMod(epochNanos - phase, PERIOD.toNanos())).as("sync %d on its slot, within a step", i)
                    .isLessThan(Duration.ofMillis(100).toNanos());
            if (i > 1) {
                assertThat(syncedAt.get(i) - syncedAt.get(i - 1)).isBetween(PERIOD.minusMillis(100).toNanos(), PERIOD.plusMillis(100).toNanos());
            }
        }
        assertThat(syncedAt.get(1) - syncedAt.get(0)).as("the second sync a period or more after the first")
                .isBetween(PERIOD.toNanos(), PERIOD.multipliedBy(2).toNanos());
    }

    @Test
    void aSyncThatStartedLateDoesNotPushTheNextOneBackAndOneMoreThanAPeriodLateSkipsASlot() {
        queue.addChanged(key("ns/a"));
        sync(key("ns/a"));
        advance(untilSlotAPeriodOnOf(key("ns/a")).plusSeconds(5)); // the workers were busy: 5 s late
        sync(key("ns/a"));
        Duration untilSlot = untilNextSlotOf(key("ns/a"));
        assertThat(untilSlot).as("still due at its own slot").isEqualTo(Duration.ofSeconds(10));
        advance(untilSlot.plus(PERIOD).plusSeconds(1)); // more than a period late
        sync(key("ns/a"));
        assertThat(next()).as("no catch-up for the slot it missed").isEmpty();
        assertThat(untilNextSlotOf(key("ns/a"))).isEqualTo(Duration.ofSeconds(14));
    }

    @Test
    void addingASyncedKeyAgainNeverMakesItDueEarlier() {
        queue.addChanged(key("ns/a"));
        sync(key("ns/a"));
        long due = time.nanos() + untilSlotAPeriodOnOf(key("ns/a")).toNanos();
        advance(Duration.ofSeconds(1));
        queue.add(key("ns/a"));
        assertThat(next()).isEmpty();
        assertThat(queue.dueAt(key("ns/a"))).contains(due);
    }

    @Test
    void aChangeIsSyncedAPeriodAfterTheLastSyncEvenWhileAWorkerHasTheKey() {
        queue.addChanged(key("ns/a"));
        long created = time.nanos();
        sync(key("ns/a"));
        assertThat(queue.dueAt(key("ns/a"))).as("its first slot a period on").contains(created + untilSlotAPeriodOnOf(key("ns/a")).toNanos());
        advance(Duration.ofMillis(1));
        queue.addChanged(key("ns/a"));
        queue.addChanged(key("ns/a")); // changes coalesce
        assertThat(next()).as("not at once").isEmpty();
        assertThat(queue.dueAt(key("ns/a"))).as("a period after the last sync, its slot or earlier").contains(created + PERIOD.toNanos());
        advance(PERIOD.minusMillis(2));
        assertThat(next()).as("1 ms before").isEmpty();
        advance(Duration.ofMillis(1));
        assertThat(next()).as("a period after the last sync").contains(key("ns/a"));

        queue.addChanged(key("ns/a")); // changed again while the worker has it
        assertThat(next()).as("a second worker must not get it").isEmpty();
        advance(Duration.ofSeconds(1));
        queue.done(key("ns/a"));
        assertThat(next()).as("not at once when the first worker is done").isEmpty();
        assertThat(queue.dueAt(key("ns/a"))).as("a period after the sync that had it").contains(created + PERIOD.multipliedBy(2).toNanos());
        advance(PERIOD.minusSeconds(1));
        sync(key("ns/a"));
        assertThat(queue.dueAt(key("ns/a"))).as("then at its slots again, a period on or more")
                .contains(time.nanos() + untilSlotAPeriodOnOf(key("ns/a")).toNanos());
        assertThat(queue.totalAdds()).as("one add per sync, however many changes").isEqualTo(3);
    }

    @Test
    void aChangeAfterASyncAtItsSlotIsPickedUpAtItsNextSlot() {
        queue.addChanged(key("ns/a"));
        sync(key("ns/a"));
        advance(untilSlotAPeriodOnOf(key("ns/a")));
        sync(key("ns/a")); // at its slot: the next slot is a period on
        long slot = time.nanos() + PERIOD.toNanos();
        advance(Duration.ofSeconds(3));
        queue.addChanged(key("ns/a"));
        assertThat(queue.dueAt(key("ns/a"))).contains(slot);
        advance(Duration.ofSeconds(12));
        assertThat(next()).contains(key("ns/a"));
    }

    @Test
    void aKeyAddedBeforeTheQueueStartsWaitsForItsFirstSlot() {
        queue.add(key("ns/a"));
        assertThat(queue.isTracked(key("ns/a"))).isTrue();
        assertThat(queue.dueAt(key("ns/a"))).as("not scheduled before the first worker asks").isEmpty();
        assertThat(next()).isEmpty();
        assertThat(queue.dueAt(key("ns/a"))).contains(cadence.firstDue(key("ns/a"), 0, 0));
        advance(untilNextSlotOf(key("ns/a")));
        assertThat(next()).contains(key("ns/a"));
    }

    @Test
    void aRemovedKeyIsNotRequeuedByTheWorkerThatHadIt() {
        queue.addChanged(key("ns/a"));
        queue.addChanged(key("ns/b"));
        assertThat(next()).contains(key("ns/a"));
        queue.forget(key("ns/a")); // deleted while it was synced
        queue.forget(key("ns/b"));
        queue.done(key("ns/a"));
        assertThat(queue.isTracked(key("ns/a"))).isFalse();
        assertThat(queue.isTracked(key("ns/b"))).isFalse();
        advance(PERIOD.multipliedBy(2));
        assertThat(next()).isEmpty();
    }

    @Test
    void anHpaCreatedAgainWhileTheDeletedOneIsSyncedIsDueWhenThatSyncEnds() {
        queue.addChanged(key("ns/a"));
        assertThat(next()).contains(key("ns/a"));
        queue.forget(key("ns/a"));
        queue.add(key("ns/a"));
        assertThat(next()).isEmpty();
        queue.done(key("ns/a"));
        assertThat(next()).contains(key("ns/a"));
    }

    @Test
    void eachKeyIsInOneStateAndAForgottenKeyLeavesNone() {
        queue.add(key("ns/old"));
        assertThat(queue.state(key("ns/old"))).contains(KeyState.State.BEFORE_START);
        queue.addChanged(key("ns/new"));
        assertThat(queue.state(key("ns/new"))).contains(KeyState.State.READY_NOW);
        assertThat(next()).contains(key("ns/new"));
        assertThat(queue.state(key("ns/new"))).contains(KeyState.State.PROCESSING);
        assertThat(queue.state(key("ns/old"))).contains(KeyState.State.SCHEDULED);
        queue.forget(key("ns/new"));
        assertThat(queue.state(key("ns/new"))).as("the worker still has it").contains(KeyState.State.PROCESSING_FORGOTTEN);
        queue.done(key("ns/new"));
        assertThat(queue.state(key("ns/new"))).as("not requeued").isEmpty();
        advance(untilNextSlotOf(key("ns/old")));
        assertThat(queue.depth()).isOne();
        assertThat(queue.state(key("ns/old"))).contains(KeyState.State.READY);
        queue.forget(key("ns/old"));
        assertThat(queue.size()).isZero();
        assertThat(queue.depth()).isZero();
    }

    @Test
    void shutDownReleasesWaitingWorkers() throws Exception {
        Thread t = new Thread(queue::shutDown);
        t.start();
        assertThat(queue.take(Duration.ofSeconds(10))).isEmpty();
        t.join();
        queue.add(key("ns/a"));
        assertThat(queue.depth()).isZero();
    }

    @Test
    void reportsHowLongAKeyWaitedAfterItWasDue() {
        queue.addChanged(key("ns/a"));
        sync(key("ns/a"));
        advance(untilSlotAPeriodOnOf(key("ns/a")).plusMillis(300));
        assertThat(queue.poll()).get().extracting(WorkQueue.Item::waitedNanos).isEqualTo(Duration.ofMillis(300).toNanos());
    }
}
