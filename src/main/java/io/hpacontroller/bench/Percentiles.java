package io.hpacontroller.bench;

import java.util.Arrays;

/** Collected durations and their percentiles. */
final class Percentiles {

    private long[] values = new long[1 << 16];
    private int size;

    synchronized void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    synchronized int size() {
        return size;
    }

    /** The p-th percentile (0-100), nearest rank; 0 when empty. */
    synchronized long percentile(double p) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))];
    }
}
