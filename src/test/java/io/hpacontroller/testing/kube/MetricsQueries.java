package io.hpacontroller.testing.kube;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every metrics.k8s.io pod-metrics query the {@link FakeMetricsServer} answered, as (time, namespace,
 * label selector): one per reconcile of an HPA with one Resource metric. Tells when each HPA was first
 * reconciled, how many queries each second saw and, when the server stamps samples as metrics-server's scrapes
 * ({@link FakeMetricsServer#scrapeEvery}), how old the data each query was answered was.
 */
public final class MetricsQueries {

    /** @param ageMillis how old the answered sample was; negative: unknown */
    private record Query(long millis, String key, long ageMillis) {
    }

    /** How many distinct HPAs (namespace and selector) were queried since a moment, and when the last of them first was. */
    public record FirstQueries(int distinct, Instant lastFirst) {
    }

    private final List<Query> queries = new ArrayList<>();

    synchronized void record(String namespace, String labelSelector, java.time.Duration age) {
        queries.add(new Query(System.currentTimeMillis(), namespace + "/" + labelSelector, age == null ? -1 : age.toMillis()));
    }

    /** The ages of the data answered between two moments, in milliseconds, sorted (the queries of unknown age left out). */
    public synchronized long[] agesBetween(Instant from, Instant to) {
        return queries.stream().filter(q -> q.millis() >= from.toEpochMilli() && q.millis() < to.toEpochMilli() && q.ageMillis() >= 0)
                .mapToLong(Query::ageMillis).sorted().toArray();
    }

    public synchronized FirstQueries firstSince(Instant since) {
        long from = since.toEpochMilli();
        Map<String, Long> first = new HashMap<>();
        for (Query q : queries) {
            if (q.millis() >= from) {
                first.putIfAbsent(q.key(), q.millis());
            }
        }
        long last = first.values().stream().mapToLong(Long::longValue).max().orElse(from);
        return new FirstQueries(first.size(), Instant.ofEpochMilli(last));
    }

    /** Queries per epoch second, from {@code since} on. */
    public synchronized Map<Long, Long> perSecondSince(Instant since) {
        long from = since.toEpochMilli();
        Map<Long, Long> out = new HashMap<>();
        for (Query q : queries) {
            if (q.millis() >= from) {
                out.merge(q.millis() / 1000, 1L, Long::sum);
            }
        }
        return out;
    }
}
