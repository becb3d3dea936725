package io.hpacontroller.core.normalize;

import io.hpacontroller.core.normalize.HpaHistory.Recommendation;
import io.hpacontroller.core.normalize.HpaHistory.ScaleEvent;
import io.hpacontroller.core.normalize.MetricFailures.MetricFailure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Everything the controller remembers of one HPA, as plain values ({@link HpaHistory}, {@link MetricFailures},
 * {@link LearnedLoad} as one): what the decisions endpoint serves, what {@code explain} restores, what is kept in the
 * cluster for the next leader ({@link Retention} compacts it). Its JSON components are a format on the wire (the
 * decisions endpoint; the stored object maps them one by one, {@code history.StoredHistory}).
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
public record HistorySnapshot(boolean seen, List<Recommendation> recommendations, List<ScaleEvent> scaleUpEvents,
                              List<ScaleEvent> scaleDownEvents, List<MetricFailure> metricFailures, String learnedLoad) {
    public HistorySnapshot {
        recommendations = recommendations == null ? List.of() : List.copyOf(recommendations);
        scaleUpEvents = scaleUpEvents == null ? List.of() : List.copyOf(scaleUpEvents);
        scaleDownEvents = scaleDownEvents == null ? List.of() : List.copyOf(scaleDownEvents);
        metricFailures = metricFailures == null ? List.of() : List.copyOf(metricFailures);
    }

    public HistorySnapshot(boolean seen, List<Recommendation> recommendations, List<ScaleEvent> scaleUpEvents, List<ScaleEvent> scaleDownEvents) {
        this(seen, recommendations, scaleUpEvents, scaleDownEvents, List.of(), null);
    }

    /** The history of an HPA that was never synced. */
    public static final HistorySnapshot NEVER_SEEN = new HistorySnapshot(false, List.of(), List.of(), List.of(), List.of(), null);

    /** The history of an HPA that was synced and remembers nothing. */
    static final HistorySnapshot EMPTY = new HistorySnapshot(true, List.of(), List.of(), List.of(), List.of(), null);

    /** The values {@code history} holds, with these failures and learned load, as one value. */
    public static HistorySnapshot of(HpaHistory history, List<MetricFailure> metricFailures, String learnedLoad) {
        HpaHistory h = history.copy(); // one consistent read
        return new HistorySnapshot(h.seen(), chronological(h.recommendationsSeen()), h.scaleUpEvents(), h.scaleDownEvents(),
                metricFailures, learnedLoad);
    }

    /** The recommendations oldest first, the run in progress last. */
    private static List<Recommendation> chronological(HpaHistory.Recommendations recommendations) {
        if (!(recommendations instanceof HpaHistory.Seen seen) || seen.slots().isEmpty()) {
            return List.of();
        }
        List<Recommendation> out = new ArrayList<>(seen.slots());
        out.sort(Comparator.comparingLong(Recommendation::timestamp)); // stable: entries of one instant keep their order
        if (seen.runInProgress() != null && out.remove(seen.runInProgress())) {
            out.add(seen.runInProgress());
        }
        return out;
    }

    /** A history holding the recommendations and scale events this holds. */
    public HpaHistory history() {
        HpaHistory h = new HpaHistory();
        if (seen) {
            h.setRecommendations(recommendations);
        }
        scaleUpEvents.forEach(e -> h.addScaleEvent(true, e.replicaChange(), e.timestamp()));
        scaleDownEvents.forEach(e -> h.addScaleEvent(false, e.replicaChange(), e.timestamp()));
        return h;
    }

    /** The recommendation of the latest sync, null when there is none. */
    public Recommendation runInProgress() {
        return recommendations.isEmpty() ? null : recommendations.get(recommendations.size() - 1);
    }

    /** This history with other recommendations (oldest first, the run in progress last). */
    public HistorySnapshot withRecommendations(List<Recommendation> recs) {
        return new HistorySnapshot(seen, recs, scaleUpEvents, scaleDownEvents, metricFailures, learnedLoad);
    }

    /** This history with other scale events. */
    public HistorySnapshot withScaleEvents(List<ScaleEvent> up, List<ScaleEvent> down) {
        return new HistorySnapshot(seen, recommendations, up, down, metricFailures, learnedLoad);
    }

    /** This history with another learned load. */
    public HistorySnapshot withLearnedLoad(String learned) {
        return new HistorySnapshot(seen, recommendations, scaleUpEvents, scaleDownEvents, metricFailures, learned);
    }

    /**
     * This history with the run in progress taken to have lasted until {@code until} (epoch millis): what a
     * new leader restores when it knows the previous one recommended that count, unchanged, up to then.
     * A run already known to have lasted longer is left as it is.
     */
    public HistorySnapshot withRunUntil(long until) {
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
