package io.hpacontroller.core.normalize;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The metrics of one HPA failing since some sync, as this controller saw them: what its fallback control
 * ({@code core.reconcile.MetricFallback}) measures a failure's duration from. Held apart from the
 * {@link HpaHistory} (the normalization's); here, beside {@link HistoryStore}, because it is kept and served with
 * it ({@link HistorySnapshot}) and the core's lower floor cannot import the reconcile package.
 */
public final class MetricFailures {

    /**
     * A metric that failed at every sync since {@code since} (epoch millis), as this controller saw it: what the
     * fallback control measures its failure duration from.
     *
     * @param metric   the metric's identity in the spec ({@code MetricIdentity})
     * @param since    the sync at which it started failing
     * @param fallback whether its fallback proposal is in force (its start was announced)
     */
    public record MetricFailure(String metric, long since, boolean fallback) {
    }

    /** By metric identity, in the order they started failing; at most one per metric of the spec. */
    private final Map<String, MetricFailure> metricFailures = new LinkedHashMap<>();

    /** The metrics failing since some sync, in the order they started failing. */
    public synchronized List<MetricFailure> all() {
        return List.copyOf(metricFailures.values());
    }

    /** Adds a remembered metric failure (used to seed a history). */
    public synchronized void addMetricFailure(MetricFailure failure) {
        metricFailures.put(failure.metric(), failure);
    }

    /**
     * The metric failed at the sync at {@code now}: its failure as remembered, started now if it was not
     * failing before.
     */
    public synchronized MetricFailure metricFailed(String metric, long now) {
        return metricFailures.computeIfAbsent(metric, m -> new MetricFailure(m, now, false));
    }

    /** The failing metric's fallback proposal is now in force. */
    public synchronized MetricFailure fallbackStarted(String metric) {
        MetricFailure f = metricFailures.get(metric);
        if (f == null || f.fallback()) {
            return f;
        }
        MetricFailure started = new MetricFailure(metric, f.since(), true);
        metricFailures.put(metric, started);
        return started;
    }

    /** The metric gave a value (or can no longer fall back): forgets its failure, which is returned (null if none). */
    public synchronized MetricFailure metricRecovered(String metric) {
        return metricFailures.remove(metric);
    }

    /** Forgets the failures of metrics not in {@code metrics} (no longer in the spec) and returns them. */
    public synchronized List<MetricFailure> keepMetricFailuresOf(Set<String> metrics) {
        List<MetricFailure> removed = new ArrayList<>();
        for (Iterator<MetricFailure> it = metricFailures.values().iterator(); it.hasNext(); ) {
            MetricFailure f = it.next();
            if (!metrics.contains(f.metric())) {
                removed.add(f);
                it.remove();
            }
        }
        return removed;
    }
}
