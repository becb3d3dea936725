package io.hpacontroller.core.normalize;

import java.util.ArrayList;
import java.util.List;

/**
 * What the controller remembers about one HPA between syncs for its normalization, as plain values: the
 * unstabilized recommendations of recent syncs ({@link NeverSeen} until its first sync) and the scale changes it
 * made, each with its time (epoch milliseconds). The rules that record them are the normalization's
 * ({@link Normalizer}, {@link ScaleEvents}); what the fallback control and the predictive scaler remember is
 * held apart ({@link MetricFailures}, {@link LearnedLoad}); {@link HistorySnapshot} is all of it as one value.
 *
 * <p>Each value is replaced whole. One worker at a time touches a given HPA's history; the accessors are
 * synchronized for the readers (metrics, simulator reports) that may look from other threads.
 */
public final class HpaHistory {

    /** A recommendation made at a sync. */
    public record Recommendation(int replicas, long timestamp) {
    }

    /** A scale change made by the controller: the absolute number of replicas added or removed. */
    public record ScaleEvent(int replicaChange, long timestamp) {
    }

    /** Longest stabilization window (and policy period) the API accepts: older entries are never used. */
    static final long MAX_WINDOW_MILLIS = Behavior.MAX_STABILIZATION_WINDOW_SECONDS * 1000L;

    /** What was recommended: {@link NeverSeen}, or the recommendations {@link Seen} at the syncs. */
    public sealed interface Recommendations permits NeverSeen, Seen {
    }

    /**
     * The HPA was never synced (or its history was restored from one that never was): its next sync records the
     * current count as its first recommendation ({@link Normalizer#recordInitialRecommendation}).
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

    /** Whether a recommendation was ever recorded (false for an HPA the controller has never synced). */
    public synchronized boolean seen() {
        return recommendations instanceof Seen;
    }

    /** The recommendations remembered, or that there are none. */
    public synchronized Recommendations recommendationsSeen() {
        return recommendations;
    }

    /** Replaces the recommendations remembered (the first sync's and the stabilization's, {@link Normalizer}). */
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

    /** A history holding the same values (each is immutable), for a planned change that is not recorded yet. */
    public synchronized HpaHistory copy() {
        HpaHistory h = new HpaHistory();
        h.recommendations = recommendations;
        h.scaleUpSlots = scaleUpSlots;
        h.scaleDownSlots = scaleDownSlots;
        return h;
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
}
