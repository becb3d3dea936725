package io.hpacontroller.sim;

import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.sim.SimulationResult.ReplicaChange;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What delayed each scale step of one HPA spec: from the first moment the demand asked for the step's count until
 * the step, which part of the way from the demand to the HPA held it back, sync by sync. Every count here is the
 * core's: the simulator asks its {@link io.hpacontroller.core.reconcile.MetricEvaluator} what the HPA's metrics would
 * have proposed with parts of the way taken out, and reads the rest from the syncs' decision traces.
 *
 * <p>The demand asks for a step to {@code to} replicas while the metrics, computed with every pod Ready for long and
 * showing the demand of that instant uncapped ({@link SettledMetrics}), propose at least {@code to} (at most, for a
 * scale-down); the model asks at every step. From the start of the last such run (or, when the count stood at {@code to}
 * or beyond during it, from when the count left) until the step:
 * <ul>
 * <li>until the first sync: {@link Cause#WAITING_FOR_THE_SYNC};</li>
 * <li>after each sync that did not take the step, until the next one, what its trace and the what-ifs say: a
 *     recommendation that asked for the step held by the stabilization window, the rate limit, minReplicas (a scheduled
 *     rule) or the prediction ({@link Cause#CAP}); else the metrics sampled at the sync without the pipeline's delay
 *     would have asked for it ({@link Cause#METRICS_LAG}); else also with every pod Ready ({@link Cause#PODS_NOT_READY});
 *     else also uncapped ({@link Cause#METRIC_AT_ITS_CEILING}); else the demand of that instant asks for it but the
 *     metric's window does not hold enough of it yet ({@link Cause#METRICS_LAG}). A sync that failed is
 *     {@link Cause#FAILED_SYNC}.</li>
 * </ul>
 * A sync at which nothing asked for the step any more (the demand had stopped, and neither the metrics nor the HPA's
 * memory carried it on) means the step came from something else: it is reported as not asked for by the demand, with
 * what raised the count where the trace says (a scheduled rule, predictive scaling).
 */
public final class ScaleDelays {

    /** What held a scale step back. */
    public enum Cause {
        WAITING_FOR_THE_SYNC("waiting for the sync"),
        METRICS_LAG("metrics lag"),
        METRIC_AT_ITS_CEILING("the metric at its ceiling"),
        PODS_NOT_READY("pods not ready"),
        CAP("a policy or window cap"),
        FAILED_SYNC("failed syncs");

        private final String words;

        Cause(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /**
     * One cause of a step's delay and how long it held the step.
     *
     * @param cause  the kind
     * @param what   in words, the cap named ("the scale-up limit", "the scale-down stabilization window")
     * @param millis how long, summed over the syncs it held
     */
    public record Delay(Cause cause, String what, long millis) {
    }

    /**
     * One stretch of a step's delay: what held the step from {@code startMillis} to {@code endMillis}. The steps of a run
     * share their stretches (the demand asked for each from the same moment), so totals over steps count the wall time
     * the stretches cover, not their sum.
     */
    public record Span(Cause cause, String what, long startMillis, long endMillis) {
    }

    /**
     * A scale step and what delayed it.
     *
     * @param timeMillis    when the step was written
     * @param from          the replicas before
     * @param to            the replicas after
     * @param askedAtMillis when the demand first asked for {@code to} replicas, -1 when it did not
     * @param unasked       when the demand did not ask: what did ("a scheduled rule", "predictive scaling", ...)
     * @param delays        the causes in the order they first held the step, each summed
     * @param spans         the stretches those sums add up, in time order
     */
    public record Step(long timeMillis, int from, int to, long askedAtMillis, String unasked, List<Delay> delays, List<Span> spans) {

        public boolean up() {
            return to > from;
        }

        /** From the demand's asking to the step; 0 when it did not ask. */
        public long lateMillis() {
            return askedAtMillis < 0 ? 0 : timeMillis - askedAtMillis;
        }
    }

    /**
     * One sync as the delays read it: the decision trace's counts and the core's proposals without parts of the way.
     *
     * @param timeMillis     when it ran (simulation time)
     * @param failed         whether it ended with an error (no decision, or a decision not written)
     * @param recommendation what the normalizer started from (the metrics' highest proposal, or the prediction above it); -1 none
     * @param rawDesired     the metrics' highest proposal; -1 when none
     * @param stabilized     the recommendation after the stabilization window; -1 without normalization
     * @param decided        the count decided; -1 when none
     * @param constraints    what changed the count from the recommendation to the decision ({@link Normalization}'s names)
     * @param ahead          what raised the count without the metrics: a scheduled rule, the prediction; null when nothing did
     * @param fresh          the metrics' proposal had they been sampled at the sync, without the pipeline's delay; -1 when none
     * @param ready          the same with every pod Ready for long, serving its share of the demand over the metric's window
     *                       ({@link SettledMetrics}, capped)
     * @param uncapped       the same, uncapped
     * @param asked          what the demand at the sync asked for (settled, uncapped, no window)
     */
    record Sync(long timeMillis, boolean failed, int recommendation, int rawDesired, int stabilized, int decided, List<String> constraints,
                String ahead, int fresh, int ready, int uncapped, int asked) {

        static Sync of(long timeMillis, DecisionTrace t, int fresh, int ready, int uncapped, int asked) {
            Normalization n = t.normalization();
            String ahead = t.schedule().raised() ? "a scheduled rule" : t.prediction().raised() ? "predictive scaling" : t.rescaleRule();
            boolean failed = t.error() != ReconcileOutcome.ErrorKind.NONE && !t.rescaled();
            return new Sync(timeMillis, failed, n == null ? -1 : n.recommendation(), t.rawDesiredReplicas(), n == null ? -1 : n.stabilized(),
                    t.desiredReplicas(), t.constraintsApplied(), ahead, fresh, ready, uncapped, asked);
        }
    }

    /** The demand's proposal over time, kept where it changes. */
    static final class Asked {
        private long[] times = new long[16];
        private int[] values = new int[16];
        private int size;

        void at(long t, int value) {
            if (size > 0 && values[size - 1] == value) {
                return;
            }
            if (size > 0 && times[size - 1] == t) {
                values[size - 1] = value;
                return;
            }
            if (size == times.length) {
                times = Arrays.copyOf(times, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            times[size] = t;
            values[size] = value;
            size++;
        }

        /**
         * When the demand began, for the last time at or before {@code t}, to ask for {@code to} (at least, or at most when
         * {@code !up}) without a break, provided it still asked after {@code since}; -1 when it did not.
         */
        long askingSince(long t, int to, boolean up, long since) {
            int i = size - 1;
            while (i >= 0 && times[i] > t) {
                i--;
            }
            long end = t;
            while (i >= 0 && !asks(values[i], to, up)) {
                end = times[i];
                i--;
            }
            if (i < 0 || end < since) {
                return -1;
            }
            while (i > 0 && asks(values[i - 1], to, up)) {
                i--;
            }
            return Math.max(times[i], since);
        }

        private static boolean asks(int value, int to, boolean up) {
            return value >= 0 && (up ? value >= to : value <= to);
        }
    }

    private ScaleDelays() {
    }

    /** Each replica change with what delayed it. */
    static List<Step> of(List<ReplicaChange> changes, List<Sync> syncs, Asked asked) {
        List<Step> out = new ArrayList<>(changes.size());
        for (int c = 0; c < changes.size(); c++) {
            ReplicaChange change = changes.get(c);
            boolean up = change.to() > change.from();
            // the count held the step's count (or beyond) until this change's run of the same direction began
            long since = Long.MIN_VALUE;
            for (int p = c - 1; p >= 0; p--) {
                ReplicaChange before = changes.get(p);
                if (up ? before.from() >= change.to() && before.to() < change.to() : before.from() <= change.to() && before.to() > change.to()) {
                    since = before.timeMillis();
                    break;
                }
            }
            long askedAt = asked.askingSince(change.timeMillis(), change.to(), up, since);
            List<Span> spans = askedAt < 0 ? null : spans(syncs, askedAt, change, up);
            if (spans == null) {
                Sync at = syncAt(syncs, change.timeMillis());
                String what = at == null || at.ahead() == null ? "without the demand asking for it" : at.ahead();
                out.add(new Step(change.timeMillis(), change.from(), change.to(), -1, what, List.of(), List.of()));
            } else {
                out.add(new Step(change.timeMillis(), change.from(), change.to(), askedAt, null, sums(spans), spans));
            }
        }
        return out;
    }

    /** The index of the first sync at or after {@code t}; {@code syncs.size()} when none. */
    private static int firstAtOrAfter(List<Sync> syncs, long t) {
        int lo = 0;
        int hi = syncs.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (syncs.get(mid).timeMillis() < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static Sync syncAt(List<Sync> syncs, long t) {
        int i = firstAtOrAfter(syncs, t);
        return i < syncs.size() && syncs.get(i).timeMillis() == t ? syncs.get(i) : null;
    }

    /**
     * What held the step from {@code from} on, stretch by stretch; null when a sync on the way had nothing left asking for
     * it (the demand had stopped asking, and neither the metrics nor the HPA's memory carried it to the step). A sync at
     * {@code from} itself that did not ask ran before the asking began (the model notes the demand after the syncs of its
     * instant: the sync whose scale made the pods ask), so it held nothing: the way to the next sync is waiting for it.
     */
    private static List<Span> spans(List<Sync> syncs, long from, ReplicaChange change, boolean up) {
        List<Span> spans = new ArrayList<>();
        long t = from;
        for (int i = firstAtOrAfter(syncs, from); i < syncs.size() && syncs.get(i).timeMillis() < change.timeMillis(); i++) {
            Sync s = syncs.get(i);
            if (s.timeMillis() == from && !asks(s.asked(), change.to(), up)) {
                continue;
            }
            if (s.timeMillis() > t) {
                spans.add(waiting(t, s.timeMillis()));
            }
            long next = i + 1 < syncs.size() ? Math.min(syncs.get(i + 1).timeMillis(), change.timeMillis()) : change.timeMillis();
            Delay held = held(s, change.to(), up, next - s.timeMillis());
            if (held == null) {
                return null;
            }
            spans.add(new Span(held.cause(), held.what(), s.timeMillis(), next));
            t = next;
        }
        if (t < change.timeMillis()) {
            spans.add(waiting(t, change.timeMillis()));
        }
        return List.copyOf(spans);
    }

    private static Span waiting(long start, long end) {
        return new Span(Cause.WAITING_FOR_THE_SYNC, Cause.WAITING_FOR_THE_SYNC.words(), start, end);
    }

    /** The spans summed by what held the step, in the order each first held it. */
    private static List<Delay> sums(List<Span> spans) {
        Map<String, Delay> sum = new LinkedHashMap<>();
        for (Span p : spans) {
            sum.merge(p.what(), new Delay(p.cause(), p.what(), p.endMillis() - p.startMillis()),
                    (a, b) -> new Delay(a.cause(), a.what(), a.millis() + b.millis()));
        }
        return List.copyOf(sum.values());
    }

    /**
     * Why sync {@code s} did not take the step to {@code to}, from its trace and the core's proposals without parts of the way;
     * null when nothing asked for the step at that sync.
     */
    static Delay held(Sync s, int to, boolean up, long millis) {
        if (s.failed() || s.decided() < 0) {
            return new Delay(Cause.FAILED_SYNC, Cause.FAILED_SYNC.words(), millis);
        }
        if (s.stabilized() >= 0 && asks(s.stabilized(), to, up)) {
            // the window let the step through; what came after it held it
            String what = s.constraints().contains(up ? Normalization.SCALE_UP_LIMIT : Normalization.SCALE_DOWN_LIMIT)
                    ? (up ? "the scale-up limit" : "the scale-down limit")
                    : s.constraints().contains(up ? Normalization.MAX_REPLICAS : Normalization.MIN_REPLICAS)
                    ? (up ? "maxReplicas" : s.ahead() != null ? s.ahead() : "minReplicas") : "a policy";
            return new Delay(Cause.CAP, what, millis);
        }
        if (s.recommendation() >= 0 && asks(s.recommendation(), to, up)) {
            return new Delay(Cause.CAP, up ? "the scale-up stabilization window" : "the scale-down stabilization window", millis);
        }
        if (s.rawDesired() >= 0 && asks(s.rawDesired(), to, up)) {
            return new Delay(Cause.CAP, "predictive scaling", millis);
        }
        if (asks(s.fresh(), to, up)) {
            return new Delay(Cause.METRICS_LAG, Cause.METRICS_LAG.words(), millis);
        }
        if (asks(s.ready(), to, up)) {
            return new Delay(Cause.PODS_NOT_READY, Cause.PODS_NOT_READY.words(), millis);
        }
        if (asks(s.uncapped(), to, up)) {
            return new Delay(Cause.METRIC_AT_ITS_CEILING, Cause.METRIC_AT_ITS_CEILING.words(), millis);
        }
        if (asks(s.asked(), to, up)) {
            // the demand asks, but not yet over the metric's whole window
            return new Delay(Cause.METRICS_LAG, Cause.METRICS_LAG.words(), millis);
        }
        return null;
    }

    private static boolean asks(int value, int to, boolean up) {
        return Asked.asks(value, to, up);
    }
}
