package io.hpacontroller.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics queries of each wall-clock second of a run and their spread: the peak over the whole run,
 * and in the steady window the median, 90th percentile (nearest rank), peak and the share of seconds
 * without any query. Shared by {@code bench} and the real-API-server run of the tests.
 */
public final class QueriesPerSecond {

    private QueriesPerSecond() {
    }

    /**
     * The figures of a run.
     *
     * @param series      epoch second to the queries it saw (a second not in it saw none)
     * @param firstSecond the run's first second (included)
     * @param lastSecond  the run's end (excluded)
     * @param steadyFrom  the first second of the steady window (it ends with the run); negative: there was none
     */
    public static Map<String, String> figures(Map<Long, Long> series, long firstSecond, long lastSecond, long steadyFrom) {
        Map<String, String> f = new LinkedHashMap<>();
        List<Long> all = new ArrayList<>();
        for (long s = firstSecond; s < lastSecond; s++) {
            all.add(series.getOrDefault(s, 0L));
        }
        f.put("metrics_queries_peak_per_second_whole_run", Long.toString(all.stream().mapToLong(Long::longValue).max().orElse(0)));
        long[] steady = steadyFrom < 0 ? new long[0] : all.subList((int) Math.max(0, Math.min(all.size(), steadyFrom - firstSecond)), all.size())
                .stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(steady);
        if (steady.length == 0) {
            f.put("metrics_queries_per_second_p50", "n/a");
            f.put("metrics_queries_per_second_p90", "n/a");
            f.put("metrics_queries_per_second_peak", "n/a");
            f.put("metrics_queries_p90_over_p50", "n/a");
            f.put("idle_seconds_share", "n/a");
        } else {
            long p50 = steady[rank(50, steady.length)];
            long p90 = steady[rank(90, steady.length)];
            f.put("metrics_queries_per_second_p50", Long.toString(p50));
            f.put("metrics_queries_per_second_p90", Long.toString(p90));
            f.put("metrics_queries_per_second_peak", Long.toString(steady[steady.length - 1]));
            f.put("metrics_queries_p90_over_p50", p50 == 0 ? "inf" : String.format("%.2f", (double) p90 / p50));
            f.put("idle_seconds_share", String.format("%.2f", Arrays.stream(steady).filter(n -> n == 0).count() / (double) steady.length));
        }
        StringBuilder sb = new StringBuilder();
        all.forEach(n -> sb.append(sb.length() == 0 ? "" : " ").append(n));
        f.put("metrics_queries_per_second", sb.toString());
        return f;
    }

    /** The index of the p-th percentile (nearest rank) among n sorted values. */
    private static int rank(int p, int n) {
        return Math.max(0, Math.min(n - 1, (int) Math.ceil(p / 100.0 * n) - 1));
    }
}
