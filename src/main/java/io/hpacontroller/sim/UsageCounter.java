package io.hpacontroller.sim;

/**
 * A cumulative counter with a short memory, like a kubelet's cumulative CPU time: the model adds usage at
 * every step, a scraper asks for the average rate over a past window. Points older than the horizon are
 * dropped.
 */
final class UsageCounter {

    private long[] times = new long[64];
    private double[] totals = new double[64];
    private int start;
    private int size;
    private final long horizonMillis;

    /**
     * @param since         when counting began (the counter is 0 then)
     * @param horizonMillis how far back queries may reach
     */
    UsageCounter(long since, long horizonMillis) {
        this.horizonMillis = horizonMillis;
        append(since, 0);
    }

    long since() {
        return times[start];
    }

    /** Adds {@code rate} (per second) held from the last point until {@code t}. */
    void add(long t, double rate) {
        int last = (start + size - 1) % times.length;
        long from = times[last];
        if (t <= from) {
            return;
        }
        append(t, totals[last] + rate * (t - from) / 1000.0);
        // drop points that no query can reach, keeping one before the horizon to interpolate from
        while (size > 2 && times[(start + 1) % times.length] <= t - horizonMillis) {
            start = (start + 1) % times.length;
            size--;
        }
    }

    /** The average rate over {@code [from, to]} (clamped to what the counter has seen); 0 for an empty range. */
    double average(long from, long to) {
        long a = Math.max(from, times[start]);
        long b = Math.min(to, times[(start + size - 1) % times.length]);
        if (b <= a) {
            return 0;
        }
        return (totalAt(b) - totalAt(a)) * 1000.0 / (b - a);
    }

    private double totalAt(long t) {
        int lo = 0;
        int hi = size - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (times[(start + mid) % times.length] <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        int i = (start + lo) % times.length;
        if (lo == size - 1 || times[i] == t) {
            return totals[i];
        }
        int j = (start + lo + 1) % times.length;
        double f = (double) (t - times[i]) / (double) (times[j] - times[i]);
        return totals[i] + f * (totals[j] - totals[i]);
    }

    private void append(long t, double total) {
        if (size == times.length) {
            long[] nt = new long[times.length * 2];
            double[] nv = new double[times.length * 2];
            for (int k = 0; k < size; k++) {
                nt[k] = times[(start + k) % times.length];
                nv[k] = totals[(start + k) % times.length];
            }
            times = nt;
            totals = nv;
            start = 0;
        }
        int end = (start + size) % times.length;
        times[end] = t;
        totals[end] = total;
        size++;
    }
}
