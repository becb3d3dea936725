package io.hpacontroller.controller;

/**
 * When the idle workers wake for a key coming due: at the end of the cell of a fixed grid its due falls in, so that the
 * keys due within one cell are synced in one burst. Woken one by one, each sync woke a worker, the HTTP client's
 * threads and the (virtual) CPUs under them from idle, and paid for it: a process syncing 167 HPAs a second spent
 * 1.45 ms of CPU per reconcile, 0.63 ms with these cells (docs/benchmarks.md, "Coalesced wake-ups").
 *
 * <p>A cell is a power of two nanoseconds, at most 1 % of the key's period and at most {@link #MAX_CELL_NANOS} (about
 * 134 ms: the cell of every period from 13.4 s on, the default 15 s among them); as powers of two, the grids of
 * different periods share their boundaries. A sync therefore starts at most one cell after its due, never before it.
 * Keys that are due at once (a new or changed HPA) and keys held back by the pace do not wait for a cell.
 */
final class Coalesce {

    /** The largest cell: 2^27 ns, about 134 ms. */
    static final long MAX_CELL_NANOS = 1L << 27;

    private Coalesce() {
    }

    /** The cell of a key with this period (nanoseconds): 1 % of it, rounded down to a power of two, at most {@link #MAX_CELL_NANOS}. */
    static long cell(long period) {
        return Long.highestOneBit(Math.min(MAX_CELL_NANOS, period / 100));
    }

    /** The ticker time to wake at for a key due at {@code due} with this period: the end of the cell the due falls in. */
    static long wakeAt(long due, long period) {
        long cell = cell(period);
        long start = due & -cell; // the cell's start: due rounded down to a multiple of the cell (a power of two)
        if (cell <= 1 || start == due || start > Long.MAX_VALUE - cell) {
            return due;
        }
        return start + cell;
    }
}
