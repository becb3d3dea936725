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

    /** What was recommended: {@link NeverSeen}, or the recommendations {@link Seen} at the syncs. */
    public sealed interface Recommendations permits NeverSeen, Seen {
    }

    /**
     * The HPA was never synced, or its recommendations were forgotten while it was suspended: its next sync
     * records the current count as its first recommendation.
     */
    public enum NeverSeen implements Recommendations {
        NEVER_SEEN
    }

    /**
     * The recommendations remembered, in their slots' order (a new one takes the slot of one no window sees any
     * more, as upstream's), and the run in progress: the latest sync's, one of the slots.
     */
    public record Seen(List<Recommendation> slots, Recommendation runInProgress) implements Recommendations {
        public Seen {
            slots = List.copyOf(slots);
        }

        /** Seen with {@code slots}, the newest one (the last of the newest, in list order) taken as the run in progress. */
        static Seen of(List<Recommendation> slots) {
            Recommendation newest = null;
            for (Recommendation r : slots) {
                if (newest == null || r.timestamp() >= newest.timestamp()) {
                    newest = r;
                }
            }
            return new Seen(slots, newest);
        }
    }

    /**
     * A scale event in its slot, with whether it was marked outdated (older than its direction's longest policy
     * period when a later event was recorded; upstream's {@code timestampedScaleEvent.outdated}): its slot is the
     * next one reused.
     */
    record ScaleEventSlot(ScaleEvent event, boolean outdated) {
    }

    private Recommendations recommendations = NeverSeen.NEVER_SEEN;
    private List<ScaleEventSlot> scaleUpSlots = List.of();
    private List<ScaleEventSlot> scaleDownSlots = List.of();
    /** By metric identity, in the order they started failing; at most one per metric of the spec. */
    private final Map<String, MetricFailure> metricFailures = new LinkedHashMap<>();
    private String learnedLoad;

    /** Whether a recommendation was ever recorded (false for an HPA the controller has never synced). */
    public synchronized boolean seen() {
        return recommendations instanceof Seen;
    }

    /** The recommendations remembered, or that there are none. */
    public synchronized Recommendations recommendationsSeen() {
        return recommendations;
    }

    /** Replaces the recommendations remembered (the stabilization's, or {@link NeverSeen} while suspended). */
    public synchronized void remember(Recommendations recs) {
        recommendations = recs;
    }

    /**
     * Replaces the recommendations (used to seed a history, e.g. from a conformance case); the newest one (the
     * last of the newest, in list order) is taken as the run in progress.
     */
    public synchronized void setRecommendations(List<Recommendation> recs) {
        recommendations = recs == null ? NeverSeen.NEVER_SEEN : Seen.of(recs);
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
        List<ScaleEventSlot> slots = new ArrayList<>(scaleEventSlots(up));
        slots.add(new ScaleEventSlot(new ScaleEvent(replicaChange, timestamp), false));
        setScaleEventSlots(up, slots);
    }

    /** The scale events of one direction in their slots. */
    synchronized List<ScaleEventSlot> scaleEventSlots(boolean up) {
        return up ? scaleUpSlots : scaleDownSlots;
    }

    /** Replaces the scale events of one direction ({@link ScaleEvents}). */
    synchronized void setScaleEventSlots(boolean up, List<ScaleEventSlot> slots) {
        if (up) {
            scaleUpSlots = List.copyOf(slots);
        } else {
            scaleDownSlots = List.copyOf(slots);
        }
    }

    /** A copy of everything remembered (the recommendations oldest first, the run in progress last). */
    public synchronized Snapshot snapshot() {
        return snapshotWith(scaleUpSlots, scaleDownSlots);
    }

    /** A copy of everything remembered, with these scale events instead of the remembered ones. */
    synchronized Snapshot snapshotWith(List<ScaleEventSlot> up, List<ScaleEventSlot> down) {
        return new Snapshot(seen(), chronological(), events(up), events(down), metricFailures(), learnedLoad);
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
        if (!(recommendations instanceof Seen seen) || seen.slots().isEmpty()) {
            return List.of();
        }
        List<Recommendation> out = new ArrayList<>(seen.slots());
        out.sort(Comparator.comparingLong(Recommendation::timestamp)); // stable: entries of one instant keep their order
        if (seen.runInProgress() != null && out.remove(seen.runInProgress())) {
            out.add(seen.runInProgress());
        }
        return out;
    }

    /** The recommendations in their slots' order (none when never seen). */
    public synchronized List<Recommendation> recommendations() {
        return recommendations instanceof Seen seen ? seen.slots() : List.of();
    }

    public synchronized List<ScaleEvent> scaleUpEvents() {
        return events(scaleUpSlots);
    }

    public synchronized List<ScaleEvent> scaleDownEvents() {
        return events(scaleDownSlots);
    }

    private static List<ScaleEvent> events(List<ScaleEventSlot> slots) {
        List<ScaleEvent> out = new ArrayList<>(slots.size());
        for (ScaleEventSlot s : slots) {
            out.add(s.event());
        }
        return out;
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
