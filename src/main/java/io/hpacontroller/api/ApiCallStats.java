package io.hpacontroller.api;

/**
 * Per-thread count and time of API calls, so a worker can tell how much of a reconcile was spent
 * waiting on the API server and how much was its own work.
 */
public final class ApiCallStats {

    private static final ThreadLocal<long[]> STATS = ThreadLocal.withInitial(() -> new long[2]);

    private ApiCallStats() {
    }

    static void record(long nanos) {
        long[] s = STATS.get();
        s[0]++;
        s[1] += nanos;
    }

    /** Resets this thread's counters. */
    public static void reset() {
        long[] s = STATS.get();
        s[0] = 0;
        s[1] = 0;
    }

    /** Calls made on this thread since the last reset. */
    public static long calls() {
        return STATS.get()[0];
    }

    /** Nanoseconds this thread spent in API calls since the last reset. */
    public static long nanos() {
        return STATS.get()[1];
    }
}
