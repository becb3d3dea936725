package io.hpacontroller.core.normalize;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the controller remembers about one HPA between syncs: the unstabilized recommendations of
 * recent syncs and the scale changes it made, each with its time (epoch milliseconds).
 *
 * <p>Like upstream, a new entry takes the place of an entry that no window can see any more, so the
 * lists stay as short as the windows allow; entries older than any window the API accepts are pruned.
 * One worker at a time touches a given HPA's history; the methods are synchronized for the readers
 * (metrics, simulator reports) that may look from other threads.
 */
public final class HpaHistory {

    /** A recommendation made at a sync. */
    public record Recommendation(int replicas, long timestamp) {
    }

    /** A scale change made by the controller: the absolute number of replicas added or removed. */
    public record ScaleEvent(int replicaChange, long timestamp) {
    }

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

    /**
     * Everything the history holds, as plain values: what the decisions endpoint serves, what {@code explain}
     * restores, what is kept in the cluster for the next leader ({@link Retention} compacts it).
     *
     * <p>The recommendations are oldest first and the last one is the run in progress: the recommendation
     * of the latest sync, whose timestamp moves at every sync that recommends the same count again.
     *
     * <p>A component added here is kept in the cluster with the rest (the stored object holds this record
     * as JSON): give it a default in {@link #EMPTY}'s terms and carry it in the {@code with...} copies.
     *
     * @param seen            whether the HPA was ever synced (false: its first sync records the current count)
     * @param recommendations the remembered recommendations, oldest first, the run in progress last
     * @param scaleUpEvents   the remembered scale-ups, in the order of their slots
     * @param scaleDownEvents the remembered scale-downs, in the order of their slots
     * @param metricFailures  the metrics failing since some sync (only for HPAs with the fallback control)
     * @param learnedLoad     what the predictive scaler learned of the load, opaque here (at most 64 KiB of text), null when none
     */
    public record Snapshot(boolean seen, List<Recommendation> recommendations, List<ScaleEvent> scaleUpEvents,
                           List<ScaleEvent> scaleDownEvents, List<MetricFailure> metricFailures, String learnedLoad) {
        public Snapshot {
            recommendations = recommendations == null ? List.of() : List.copyOf(recommendations);
            scaleUpEvents = scaleUpEvents == null ? List.of() : List.copyOf(scaleUpEvents);
            scaleDownEvents = scaleDownEvents == null ? List.of() : List.copyOf(scaleDownEvents);
            metricFailures = metricFailures == null ? List.of() : List.copyOf(metricFailures);
        }

        public Snapshot(boolean seen, List<Recommendation> recommendations, List<ScaleEvent> scaleUpEvents, List<ScaleEvent> scaleDownEvents) {
            this(seen, recommendations, scaleUpEvents, scaleDownEvents, List.of(), null);
        }

        /** The history of an HPA that was never synced. */
        public static final Snapshot NEVER_SEEN = new Snapshot(false, List.of(), List.of(), List.of(), List.of(), null);

        /** The history of an HPA that was synced and remembers nothing. */
        static final Snapshot EMPTY = new Snapshot(true, List.of(), List.of(), List.of(), List.of(), null);

        /** The recommendation of the latest sync, null when there is none. */
        public Recommendation runInProgress() {
            return recommendations.isEmpty() ? null : recommendations.get(recommendations.size() - 1);
        }

        /** This history with other recommendations (oldest first, the run in progress last). */
        public Snapshot withRecommendations(List<Recommendation> recs) {
            return new Snapshot(seen, recs, scaleUpEvents, scaleDownEvents, metricFailures, learnedLoad);
        }

        /** This history with other scale events. */
        public Snapshot withScaleEvents(List<ScaleEvent> up, List<ScaleEvent> down) {
            return new Snapshot(seen, recommendations, up, down, metricFailures, learnedLoad);
        }

        /** This history with another learned load. */
        public Snapshot withLearnedLoad(String learned) {
            return new Snapshot(seen, recommendations, scaleUpEvents, scaleDownEvents, metricFailures, learned);
        }

        /**
         * This history with the run in progress taken to have lasted until {@code until} (epoch millis): what a
         * new leader restores when it knows the previous one recommended that count, unchanged, up to then.
         * A run already known to have lasted longer is left as it is.
         */
        public Snapshot withRunUntil(long until) {
            Recommendation run = runInProgress();
            if (run == null || run.timestamp() >= until) {
                return this;
            }
            List<Recommendation> recs = new ArrayList<>(recommendations);
            recs.set(recs.size() - 1, new Recommendation(run.replicas(), until));
            return withRecommendations(recs);
        }

        /**
         * Whether this holds no more than the first sync of a new leader would make up again: at most one
         * recommendation and nothing else.
         */
        public boolean onlyTheRunInProgress() {
            return recommendations.size() <= 1 && withRecommendations(List.of()).equals(EMPTY);
        }
    }

    /** Longest stabilization window (and policy period) the API accepts: older entries are never used. */
    static final long MAX_WINDOW_MILLIS = Behavior.MAX_STABILIZATION_WINDOW_SECONDS * 1000L;

    private List<Recommendation> recommendations;
    /** The recommendation of the latest sync (the run in progress), null when there is none. */
    private Recommendation newest;
    private final List<StoredEvent> scaleUpEvents = new ArrayList<>();
    private final List<StoredEvent> scaleDownEvents = new ArrayList<>();
    /** By metric identity, in the order they started failing; at most one per metric of the spec. */
    private final Map<String, MetricFailure> metricFailures = new LinkedHashMap<>();
    private String learnedLoad;

    private static final class StoredEvent {
        int replicaChange;
        long timestamp;
        boolean outdated;

        StoredEvent(int replicaChange, long timestamp) {
            this.replicaChange = replicaChange;
            this.timestamp = timestamp;
        }
    }

    /** Whether a recommendation was ever recorded (false for an HPA the controller has never synced). */
    public synchronized boolean seen() {
        return recommendations != null;
    }

    /** On the first sync, remember the current replica count as a recommendation made now. */
    public synchronized void recordInitialRecommendation(int currentReplicas, long now) {
        if (recommendations == null) {
            recommendations = new ArrayList<>();
            newest = new Recommendation(currentReplicas, now);
            recommendations.add(newest);
        }
    }

    /**
     * Replaces the recommendations (used to seed a history, e.g. from a conformance case); the newest one (the
     * last of the newest, in list order) is taken as the run in progress.
     */
    public synchronized void setRecommendations(List<Recommendation> recs) {
        recommendations = recs == null ? null : new ArrayList<>(recs);
        newest = null;
        if (recs != null) {
            for (Recommendation r : recs) {
                if (newest == null || r.timestamp() >= newest.timestamp()) {
                    newest = r;
                }
            }
        }
    }

    /**
     * The HPA is suspended (the per-HPA {@code mode: Suspended}): what it recommended no longer describes its
     * workload, which may be scaled by hand meanwhile. The recommendations are forgotten, so that its first sync
     * after it resumes records the current count, as the first sync of a new HPA does; the scale events stay,
     * so that a scale made just before counts against the policies after. An HPA in {@code Preview} needs no
     * call: its syncs record their recommendations as usual and, writing no scale, record no scale event.
     */
    public synchronized void forgetRecommendations() {
        recommendations = null;
        newest = null;
    }

    /** What the predictive scaler learned of this HPA's load (opaque here), null when nothing. */
    public synchronized String learnedLoad() {
        return learnedLoad;
    }

    /**
     * Replaces what the predictive scaler learned (an encoded form of at most 64 KiB of text): kept in the
     * cluster with the rest of the history, at most once a minute when nothing else changed.
     */
    public synchronized void setLearnedLoad(String encoded) {
        learnedLoad = encoded;
    }

    /** Adds a remembered scale event (used to seed a history). */
    public synchronized void addScaleEvent(boolean up, int replicaChange, long timestamp) {
        (up ? scaleUpEvents : scaleDownEvents).add(new StoredEvent(replicaChange, timestamp));
    }

    /** A copy of everything remembered (the recommendations oldest first, the run in progress last). */
    public synchronized Snapshot snapshot() {
        return new Snapshot(seen(), chronological(), scaleUpEvents(), scaleDownEvents(), metricFailures(), learnedLoad);
    }

    /**
     * A copy of everything remembered as it will be once the scale from {@code previousReplicas} to
     * {@code newReplicas} is recorded ({@link #recordScaleEvent}); the history itself does not change. What is
     * kept in the cluster before the scale is written, so that a scale is never written before its event is kept.
     */
    public synchronized Snapshot snapshotWithScaleEvent(Behavior behavior, int previousReplicas, int newReplicas, long now) {
        if (behavior == null || previousReplicas == newReplicas) {
            return snapshot();
        }
        boolean up = newReplicas > previousReplicas;
        List<StoredEvent> events = new ArrayList<>();
        for (StoredEvent e : up ? scaleUpEvents : scaleDownEvents) {
            StoredEvent copy = new StoredEvent(e.replicaChange, e.timestamp);
            copy.outdated = e.outdated;
            events.add(copy);
        }
        record(events, up ? behavior.scaleUp() : behavior.scaleDown(), previousReplicas, newReplicas, now);
        return new Snapshot(seen(), chronological(), up ? copy(events) : scaleUpEvents(), up ? scaleDownEvents() : copy(events), metricFailures(), learnedLoad);
    }

    /** A history holding what the snapshot holds. */
    public static HpaHistory restore(Snapshot snapshot) {
        HpaHistory h = new HpaHistory();
        if (snapshot.seen()) {
            h.setRecommendations(snapshot.recommendations());
        }
        snapshot.scaleUpEvents().forEach(e -> h.addScaleEvent(true, e.replicaChange(), e.timestamp()));
        snapshot.scaleDownEvents().forEach(e -> h.addScaleEvent(false, e.replicaChange(), e.timestamp()));
        snapshot.metricFailures().forEach(h::addMetricFailure);
        h.learnedLoad = snapshot.learnedLoad();
        return h;
    }

    /** The recommendations oldest first, the run in progress last. */
    private List<Recommendation> chronological() {
        if (recommendations == null || recommendations.isEmpty()) {
            return List.of();
        }
        List<Recommendation> out = new ArrayList<>(recommendations);
        out.sort(Comparator.comparingLong(Recommendation::timestamp)); // stable: entries of one instant keep their order
        if (newest != null && out.remove(newest)) {
            out.add(newest);
        }
        return out;
    }

    public synchronized List<Recommendation> recommendations() {
        return recommendations == null ? List.of() : List.copyOf(recommendations);
    }

    public synchronized List<ScaleEvent> scaleUpEvents() {
        return copy(scaleUpEvents);
    }

    public synchronized List<ScaleEvent> scaleDownEvents() {
        return copy(scaleDownEvents);
    }

    private static List<ScaleEvent> copy(List<StoredEvent> events) {
        List<ScaleEvent> out = new ArrayList<>(events.size());
        for (StoredEvent e : events) {
            out.add(new ScaleEvent(e.replicaChange, e.timestamp));
        }
        return out;
    }

    /**
     * The remembered recommendations in their slots' order, those no window the API accepts can see any more
     * forgotten: the live list, for {@link Normalizer}'s stabilization, which holds this history's lock.
     */
    List<Recommendation> recommendationSlots(long now, long windowMillis) {
        if (recommendations == null) {
            recommendations = new ArrayList<>();
        }
        long horizon = now - Math.max(MAX_WINDOW_MILLIS, windowMillis);
        recommendations.removeIf(r -> r.timestamp() < horizon);
        return recommendations;
    }

    /**
     * Records a new recommendation in the slot of {@code oldIndex} (one no window sees any more), or after the others
     * when it is -1; it is the run in progress. For {@link Normalizer}, which holds this history's lock.
     */
    void recordRecommendation(List<Recommendation> recs, int oldIndex, Recommendation rec) {
        if (oldIndex >= 0) {
            recs.set(oldIndex, rec);
        } else {
            recs.add(rec);
        }
        newest = rec;
    }

    /**
     * Remembers a scale change (only HPAs with a behavior need them). An event older than the
     * direction's longest policy period is marked outdated and its slot is reused.
     */
    public synchronized void recordScaleEvent(Behavior behavior, int previousReplicas, int newReplicas, long now) {
        if (behavior == null || previousReplicas == newReplicas) {
            return;
        }
        boolean up = newReplicas > previousReplicas;
        record(up ? scaleUpEvents : scaleDownEvents, up ? behavior.scaleUp() : behavior.scaleDown(), previousReplicas, newReplicas, now);
    }

    private static void record(List<StoredEvent> events, ScalingRules rules, int previousReplicas, int newReplicas, long now) {
        long horizon = now - Math.max(MAX_WINDOW_MILLIS, rules.longestPolicyPeriodSeconds() * 1000L);
        events.removeIf(e -> e.timestamp < horizon);
        long cutoff = now - rules.longestPolicyPeriodSeconds() * 1000L;
        int oldIndex = -1;
        for (int i = 0; i < events.size(); i++) {
            StoredEvent e = events.get(i);
            if (e.timestamp <= cutoff) {
                e.outdated = true;
            }
            if (e.outdated) {
                oldIndex = i;
            }
        }
        // in long: a scale that reported a negative count must not wrap the difference
        int change = (int) Math.min(Integer.MAX_VALUE, Math.abs((long) newReplicas - previousReplicas));
        if (oldIndex >= 0) {
            StoredEvent e = events.get(oldIndex);
            e.replicaChange = change;
            e.timestamp = now;
            e.outdated = false;
        } else {
            events.add(new StoredEvent(change, now));
        }
    }

    /** The metrics failing since some sync, in the order they started failing. */
    public synchronized List<MetricFailure> metricFailures() {
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
