package io.hpacontroller.core.cadence;

import java.util.ArrayDeque;
import java.util.Optional;

/**
 * What the controller learns of one metrics pipeline (one metrics-server, or one adapter) from the samples it reads
 * anyway: how often a new sample becomes readable (the interval) and how old a sample is when it does (its age then).
 *
 * <p>The model: the pipeline publishes a sample every {@code interval}; the sample stamped {@code ts} becomes readable
 * at {@code ts + age}, {@code age} the same for every sample. A sync at {@code t} that reads the sample stamped
 * {@code ts} tells two things: it was readable by then ({@code age <= t - ts}: an upper bound) and the next one was
 * not ({@code age > t - ts - interval}: a lower bound). The syncs of one period, spread over it, together probe the
 * whole period; each further observation only narrows the bounds.
 * <ul>
 *   <li>The interval: the shortest of the last {@value #STEPS_KEPT} steps between the newest timestamps read (a step
 *       that spans two samples, read by a sparse prober, gives a multiple of the interval, which is harmless: every
 *       instant it predicts is still one where a sample becomes readable). After a change of resolution (15 s to
 *       30 s) it follows within {@value #STEPS_KEPT} samples.</li>
 *   <li>The age: the bounds {@code (lower, upper]}, learned again from the next observation when the interval changes; {@link Estimate#syncAge} is {@code upper} once they are within
 *       {@value #CONVERGED_MILLIS} ms of each other, else their middle (at least that far below upper), so that a lone HPA's syncs bisect the
 *       uncertainty (each sync halves it: from a whole interval to under a second in four syncs). Bounds that
 *       contradict each other (a sync at the learned instant read the previous sample: the pipeline got slower or moved)
 *       are dropped for the newest observation's, and learning starts again from it; so are the bounds when the newest
 *       timestamp goes back by less than half an interval (the pipeline moved its phase: a restart), and the interval too when it
 *       moves forward by no whole number of intervals nor by a divisor of the interval (learned again from the next
 *       step: a step that divides the interval makes it shorter, since a lone HPA whose probe skipped a period first
 *       sees a step of two intervals).</li>
 *   <li>A source that cannot be trusted is ignored: a timestamp in the future, or one that goes back by more than half
 *       an interval, forgets everything learned and gives no estimate for {@value #QUARANTINE_MILLIS} ms (and for
 *       as long as it goes on). A source whose newest sample stops changing for {@value #STALE_INTERVALS} intervals
 *       gives no estimate either. Without an estimate the HPA keeps its phase of the spread cadence.</li>
 * </ul>
 * Times are epoch milliseconds. Thread-safe: the workers of the live controller observe concurrently.
 */
public final class SampleCadence {

    /** Steps between newest timestamps the interval is the shortest of. */
    static final int STEPS_KEPT = 4;
    /** Bounds at most this far apart (ms) are converged: the sync goes to the upper one. */
    static final long CONVERGED_MILLIS = 1000;
    /** How long (ms) a source whose timestamps went back or jumped is ignored. */
    static final long QUARANTINE_MILLIS = 120_000;
    /** A newest sample unchanged for this many intervals: the source is stale, no estimate. */
    static final int STALE_INTERVALS = 4;
    /** A timestamp this far (ms) ahead of the observation is in the future. */
    static final long FUTURE_SLACK_MILLIS = 1000;
    /** Steps shorter than this (ms) are not a new sample (a pod of another node stamped a little later). */
    static final long MIN_STEP_MILLIS = 1000;
    /** Before the interval is known, a step back longer than this (ms) is a step back. */
    static final long BACK_SLACK_MILLIS = 5000;

    /**
     * What is learned.
     *
     * @param newest   the newest sample timestamp read
     * @param interval how often a new sample becomes readable (ms)
     * @param lower    the age (ms) of a sample when it becomes readable is more than this
     * @param upper    ... and at most this
     */
    public record Estimate(long newest, long interval, long lower, long upper) {

        /** Whether the age is known within {@link #CONVERGED_MILLIS}. */
        public boolean converged() {
            return upper - lower <= CONVERGED_MILLIS;
        }

        /**
         * The age (ms) a sample should have at the sync that reads it first: upper when converged, else a probe: the
         * middle, but at least {@link #CONVERGED_MILLIS} below upper (a slot less than that earlier is not moved to,
         * {@link FreshSlots#KEEP_WITHIN_MILLIS}, so a smaller step would never be probed and the bounds never close).
         */
        public long syncAge() {
            return converged() ? upper : Math.min(lower + (upper - lower) / 2, upper - CONVERGED_MILLIS);
        }

        /** The instants a sync should be at: {@code readableAt() + k * interval}. */
        public long readableAt() {
            return newest + syncAge();
        }

        /** The phase (ms after each multiple of {@code period} since the epoch) of a sync {@code offset} ms after a sample becomes readable. */
        public long phaseIn(long period, long offset) {
            return Math.floorMod(readableAt() + offset, period);
        }
    }

    private final ArrayDeque<Long> steps = new ArrayDeque<>();
    private long newest = Long.MIN_VALUE;
    private long newestSince;
    private long lower = Long.MIN_VALUE;
    private long upper = Long.MAX_VALUE;
    private long ignoredUntil = Long.MIN_VALUE;

    /** A sync at {@code at} read a sample stamped {@code sampleTime} (0 or less: unknown, ignored). */
    public synchronized void observe(long at, long sampleTime) {
        if (sampleTime <= 0) {
            return;
        }
        long interval = interval();
        if (outOfOrder(at, sampleTime, interval)) {
            forget();
            ignoredUntil = at + QUARANTINE_MILLIS;
            return;
        }
        if (at < ignoredUntil) {
            return;
        }
        advanceNewest(at, sampleTime, interval);
        if (interval() != interval) { // the resolution changed (or is known now): bounds computed with the old one may be wrong
            lower = Long.MIN_VALUE;
            upper = Long.MAX_VALUE;
            interval = interval();
        }
        if (interval <= 0) {
            return;
        }
        narrowBounds(at - sampleTime, interval);
    }

    /** A sample from the future, or older than the newest by more than the slack: the source is not what was learned. */
    private boolean outOfOrder(long at, long sampleTime, long interval) {
        long backSlack = interval > 0 ? interval / 2 : BACK_SLACK_MILLIS;
        return sampleTime > at + FUTURE_SLACK_MILLIS || (newest != Long.MIN_VALUE && sampleTime < newest - backSlack);
    }

    /** Takes the sample as the newest, learning the step from the previous newest. */
    private void advanceNewest(long at, long sampleTime, long interval) {
        if (newest == Long.MIN_VALUE) {
            newest = sampleTime;
            newestSince = at;
        } else if (sampleTime < newest - MIN_STEP_MILLIS) { // back by less than half an interval: the pipeline moved its phase
            newest = sampleTime;
            newestSince = at;
            lower = Long.MIN_VALUE;
            upper = Long.MAX_VALUE;
        } else if (sampleTime > newest) {
            long step = sampleTime - newest;
            if (step >= MIN_STEP_MILLIS && interval > 0 && !nearMultiple(step, interval, 1, MIN_STEP_MILLIS)
                    && !nearMultiple(interval, step, 2, MIN_STEP_MILLIS / 2)) {
                steps.clear(); // neither a whole number of intervals nor one's divisor: the pipeline moved its phase or changed its resolution
            } else if (step >= MIN_STEP_MILLIS) {
                steps.addLast(step);
                if (steps.size() > STEPS_KEPT) {
                    steps.removeFirst();
                }
                newestSince = at;
            }
            newest = sampleTime;
        }
    }

    /** Narrows the bounds of the pipeline's delay with a sample {@code age} ms old when read. */
    private void narrowBounds(long age, long interval) {
        long newLower = Math.max(lower, age - interval);
        long newUpper = Math.min(upper, age);
        if (newLower >= newUpper) { // contradicts what was learned: the pipeline changed; learn again from here
            newLower = age - interval;
            newUpper = age;
        }
        lower = newLower;
        upper = newUpper;
    }

    /** What is learned, as of {@code now}; empty before two samples were read, while ignored, or when the source went stale. */
    public synchronized Optional<Estimate> estimate(long now) {
        long interval = interval();
        if (interval <= 0 || now < ignoredUntil || upper == Long.MAX_VALUE || now - newestSince > STALE_INTERVALS * interval) {
            return Optional.empty();
        }
        return Optional.of(new Estimate(newest, interval, lower, upper));
    }

    /** Whether {@code a} is within {@code tolerance} of {@code n x b} for a whole {@code n} of at least {@code least}. */
    private static boolean nearMultiple(long a, long b, long least, long tolerance) {
        long n = Math.round((double) a / b);
        return n >= least && Math.abs(a - n * b) <= tolerance;
    }

    /** The shortest of the last steps between newest timestamps, 0 before there is one. */
    private long interval() {
        long min = 0;
        for (long s : steps) {
            min = min == 0 ? s : Math.min(min, s);
        }
        return min;
    }

    private void forget() {
        steps.clear();
        newest = Long.MIN_VALUE;
        lower = Long.MIN_VALUE;
        upper = Long.MAX_VALUE;
    }
}
