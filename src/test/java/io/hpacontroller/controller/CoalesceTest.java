package io.hpacontroller.controller;

import io.hpacontroller.core.HpaKey;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.SplittableRandom;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cells idle workers wake at the end of: keys due within one cell are synced in one burst, none before its due and
 * none more than a cell after it.
 */
class CoalesceTest {

    private static final long PERIOD = Duration.ofSeconds(15).toNanos();

    @Test
    void aCellIsAPowerOfTwoOfAtMostOnePercentOfThePeriodAndAbout134Ms() {
        assertThat(Coalesce.cell(PERIOD)).isEqualTo(1L << 27).isEqualTo(Coalesce.MAX_CELL_NANOS);
        assertThat(Duration.ofNanos(Coalesce.MAX_CELL_NANOS).toMillis()).isEqualTo(134);
        assertThat(Coalesce.cell(Duration.ofMinutes(5).toNanos())).isEqualTo(Coalesce.MAX_CELL_NANOS);
        assertThat(Coalesce.cell(Duration.ofSeconds(1).toNanos())).isEqualTo(1L << 23); // 8.4 ms: 1 % is 10 ms
        assertThat(Coalesce.cell(Duration.ofMillis(1).toNanos())).isEqualTo(1L << 13); // 8.2 µs
    }

    @Test
    void aKeyDueWithinACellWakesAtItsEndAndOneDueOnABoundaryAtItsDue() {
        long cell = Coalesce.cell(PERIOD);
        long start = 1_000 * cell;
        assertThat(Coalesce.wakeAt(start, PERIOD)).isEqualTo(start);
        assertThat(Coalesce.wakeAt(start + 1, PERIOD)).isEqualTo(start + cell);
        assertThat(Coalesce.wakeAt(start + cell / 2, PERIOD)).isEqualTo(start + cell);
        assertThat(Coalesce.wakeAt(start + cell - 1, PERIOD)).isEqualTo(start + cell);
        assertThat(Coalesce.wakeAt(-start - 1, PERIOD)).isEqualTo(-start); // ticker times may be negative
    }

    @Test
    void noKeyWakesBeforeItsDueNorMoreThanACellAfterAndTheGridsOfDifferentPeriodsShareBoundaries() {
        SplittableRandom random = new SplittableRandom(37);
        long[] periods = {Duration.ofSeconds(1).toNanos(), Duration.ofSeconds(7).toNanos(), PERIOD, Duration.ofMinutes(2).toNanos()};
        for (int i = 0; i < 100_000; i++) {
            long due = random.nextLong();
            long period = periods[i % periods.length];
            long wake = Coalesce.wakeAt(due, period);
            assertThat(wake - due).isBetween(0L, Coalesce.cell(period) - 1);
            // a key with a longer period wakes on a boundary of every shorter period's grid: the bursts line up
            assertThat(Coalesce.wakeAt(wake, periods[0])).isEqualTo(wake);
        }
    }

    @Test
    void withoutAPeriodOfAtLeastTwoHundredNanosecondsThereIsNoCell() {
        assertThat(Coalesce.wakeAt(12_345, 0)).isEqualTo(12_345);
        assertThat(Coalesce.wakeAt(12_345, 199)).isEqualTo(12_345);
        assertThat(Coalesce.wakeAt(Long.MAX_VALUE - 5, PERIOD)).isEqualTo(Long.MAX_VALUE - 5); // no cell end past the ticker's range
    }

    /**
     * The queue's idle worker, on the real ticker, takes a key due just after a cell's start at the cell's end, not at
     * its due (before, it woke at the due). No upper bound: on a loaded machine the wake may come later still.
     */
    @Test
    void anIdleWorkerTakesAKeyDueByItsCadenceAtTheEndOfTheCellItIsDueIn() throws InterruptedException {
        PhasedCadence cadence = new PhasedCadence(Duration.ofNanos(PERIOD), Clock.systemUTC(), Ticker.SYSTEM);
        WorkQueue queue = new WorkQueue(Ticker.SYSTEM, cadence, Ticker.SYSTEM.nanos());
        HpaKey key = key("ns/coalesced");
        queue.add(key);
        assertThat(queue.poll()).isEmpty(); // the queue starts; the key waits for its first slot
        long cell = Coalesce.cell(PERIOD);
        long dueMillis = cadence.epochMillisAt(Ticker.SYSTEM.nanos()) + 1_000;
        while (Math.floorMod(cadence.dueAt(key, dueMillis), cell) > 10_000_000) { // a due within 10 ms after a cell's start
            dueMillis++;
        }
        queue.handOver(key, dueMillis, Long.MIN_VALUE);
        long due = queue.dueAt(key).orElseThrow();
        long wake = Coalesce.wakeAt(due, PERIOD);
        assertThat(wake - due).isGreaterThan(cell / 2);

        WorkQueue.Item taken = queue.take(Duration.ofSeconds(60)).orElseThrow();

        assertThat(taken.key()).isEqualTo(key);
        assertThat(taken.takenAt()).isGreaterThanOrEqualTo(wake);
        assertThat(taken.waitedNanos()).isGreaterThanOrEqualTo(wake - due);
        queue.shutDown();
    }
}
