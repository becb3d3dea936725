package io.hpacontroller.sim;

import java.util.Arrays;

/**
 * A time series for the chart, bucketed so that a week draws as fast as a minute: each bucket keeps the
 * highest (or lowest) value seen in it, so peaks (or dips) survive. Times are milliseconds from 0.
 */
public final class Series {

    public enum Keep { MAX, MIN }

    private final long bucketMillis;
    private final Keep keep;
    private final double[] values;
    private final boolean[] seen;

    Series(long durationMillis, long bucketMillis, Keep keep) {
        this.bucketMillis = bucketMillis;
        this.keep = keep;
        int n = (int) (durationMillis / bucketMillis) + 1;
        this.values = new double[n];
        this.seen = new boolean[n];
    }

    void add(long t, double v) {
        int i = (int) Math.min(values.length - 1, t / bucketMillis);
        if (!seen[i]) {
            values[i] = v;
            seen[i] = true;
        } else {
            values[i] = keep == Keep.MAX ? Math.max(values[i], v) : Math.min(values[i], v);
        }
    }

    public int size() {
        return values.length;
    }

    public long timeAt(int i) {
        return i * bucketMillis;
    }

    /** The value of bucket {@code i}; NaN when nothing was recorded in it. */
    public double valueAt(int i) {
        return seen[i] ? values[i] : Double.NaN;
    }

    /** The largest finite value, 0 when there is none. */
    public double max() {
        double m = 0;
        for (int i = 0; i < values.length; i++) {
            if (seen[i] && Double.isFinite(values[i])) {
                m = Math.max(m, values[i]);
            }
        }
        return m;
    }

    @Override
    public String toString() {
        return Arrays.toString(values);
    }
}
