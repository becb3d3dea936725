package io.hpacontroller.core.cadence;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * When one metrics pipeline's new samples become readable (its scrapes), learned from the times of the syncs that read
 * them: pooled over every HPA of the pipeline ({@link MetricsPipelines} feeds it), so that the syncs of HPAs spread over
 * the period probe the whole period without moving any of them.
 *
 * <p>The evidence (issue 40): a sync at {@code t} whose newest stamp {@code s} differs from the one the previous sync of
 * the same HPA read at {@code t0} proves a scrape in {@code (max(t0, s), t]} (a "readable moment"). Nothing is assumed of
 * the delay from a stamp to its scrape: the kubelet stamps each container at its own housekeeping, 1 to 10 s before the
 * scrape, and a pod's stamp may not change across a scrape (then no interval is proved, and the next one is wider).
 * <ul>
 *   <li>The interval {@code P} of the scrapes: the largest candidate ({@link #CANDIDATES}: whole multiples of 5 s up to
 *       60 s) whose share of agreeing intervals is at least {@value #AGREE_PERCENT} % and within {@value #TIE} of the
 *       best candidate's: the share of the intervals of its window under {@code P/2} wide that contain one instant
 *       modulo {@code P}. A multiple of the true interval is not agreed with (the scrapes in between split the votes); a
 *       divisor is, and loses to the larger. A candidate is
 *       tried on the intervals of its last {@value #WINDOW_PERIODS} periods once they span at least two of them.</li>
 *   <li>The phase: the instants modulo {@code P} that the most intervals of the window (the last {@value #WINDOW_PERIODS}
 *       periods) contain, a robust intersection (a few intervals around a late scrape do not move it). Its upper end is
 *       where the fresh syncs go: the latest instant the scrape may have been at. A sync in the arc that read a sample
 *       more than an interval old raises its lower end ({@link #below}). The estimate is converged when that arc is one
 *       run at most {@value #CONVERGED_MILLIS} ms wide; only then do HPAs move to it ({@link FreshSlots#phase}); until
 *       then a few fresh HPAs probe it ({@link FreshSlots#next}), and a converged estimate is kept a while ({@link #held}).</li>
 *   <li>A change of interval (15 s to 30 s) or of phase is followed as the window fills with the new intervals: the
 *       phase within {@value #WINDOW_PERIODS} periods (sooner when it moves earlier), the interval once
 *       {@value #AGREE_PERCENT} % of the larger candidate's window is new (about 3 of its periods).</li>
 * </ul>
 * Memory: a bounded window ({@value #HISTORY_MILLIS} ms, at most {@value #PER_SECOND} intervals ending in one second),
 * per pipeline, whatever the number of HPAs. The estimate is computed again at most once a second for each interval
 * assumed (HPAs of different periods on one pipeline do not recompute it at each other's syncs).
 * Our own code, not a library's: no library estimates a phase from interval censored observations.
 * Times are epoch milliseconds. Thread-safe: the workers of the live controller observe concurrently.
 */
public final class SampleCadence {

    /** The candidate intervals (ms). */
    static final long[] CANDIDATES = {60_000, 55_000, 50_000, 45_000, 40_000, 35_000, 30_000, 25_000, 20_000, 15_000, 10_000, 5_000};
    /** An arc of the phase at most this wide (ms) is converged. */
    static final long CONVERGED_MILLIS = 2000;
    /** The resolution (ms) of the phase. */
    static final long BIN_MILLIS = 100;
    /** How many of a candidate's periods its window spans. */
    static final int WINDOW_PERIODS = 4;
    /** The share (percent) of the narrow intervals that must agree with a candidate. */
    static final int AGREE_PERCENT = 80;
    /** A candidate agrees about as well as the best one when its share is at most this much lower. */
    static final double TIE = 0.1;
    /** The least number of narrow intervals a candidate is tried on. */
    static final int MIN_VOTES = 3;
    /**
     * No estimate before the intervals span this long (ms): a divisor of the interval agrees as well as the interval, and
     * a candidate is tried once its window spans two of its periods; by then 15 s and 30 s are told from 5 s and 10 s.
     */
    static final long MIN_SPAN_MILLIS = 60_000;
    /** How long (ms) an interval is kept: the largest candidate's window. */
    static final long HISTORY_MILLIS = WINDOW_PERIODS * CANDIDATES[0];
    /** At most this many intervals ending within one second are kept (the pipeline's memory is bounded). */
    static final int PER_SECOND = 8;
    /** How long (ms) a converged estimate is kept while the newer intervals still allow its phase (then it is learned again). */
    static final long HOLD_MILLIS = HISTORY_MILLIS;

    /**
     * What is learned.
     *
     * @param interval how often a new sample becomes readable (ms)
     * @param phase    when within each interval since the epoch it does (ms): the upper end of the arc
     * @param width    how wide the arc of the possible phases is (ms); the interval when it is not one run
     * @param delay    the median age (ms) of the new stamps at the learned readable moments (the intervals that agree)
     * @param votes    how many intervals agree with the arc
     */
    public record Estimate(long interval, long phase, long width, long delay, int votes) {

        /** Whether the phase is known within {@link #CONVERGED_MILLIS}. */
        public boolean converged() {
            return width <= CONVERGED_MILLIS;
        }

        /** The phase (ms after each multiple of {@code period} since the epoch) of a sync {@code offset} ms after a sample becomes readable. */
        public long phaseIn(long period, long offset) {
            return Math.floorMod(phase + offset, period);
        }
    }

    /** A scrape happened in {@code (from, to]}; the sync at {@code to} read a new stamp {@code stamp}. */
    private record Proof(long from, long to, long stamp) {
    }

    private final ArrayDeque<Proof> proofs = new ArrayDeque<>();
    private long lastSecond = Long.MIN_VALUE;
    private int inLastSecond;
    /** The latest estimate for each interval assumed (the HPAs' periods, 0: none), and when it was computed. */
    private final Map<Long, Computed> computed = new HashMap<>();
    /** At most this many intervals' estimates are kept (more: all are computed again). */
    private static final int MAX_COMPUTED = 16;

    private record Computed(long at, Estimate estimate) {
    }
    /** How many times the estimate was computed (at most once a second for each interval assumed). */
    private long computations;
    /** The last converged estimate, and when it was learned ({@link #held}). */
    private Estimate held;
    private long heldSince;

    /** A scrape happened in {@code (from, to]}, proved by a sync at {@code to} that read a new stamp {@code stamp}. */
    public synchronized void observe(long from, long to, long stamp) {
        if (to <= from || to - from >= CANDIDATES[0]) {
            return; // wider than any interval: says nothing
        }
        long second = Math.floorDiv(to, 1000);
        if (second != lastSecond) {
            lastSecond = second;
            inLastSecond = 0;
        }
        if (inLastSecond++ >= PER_SECOND) {
            return;
        }
        proofs.addLast(new Proof(from, to, stamp));
        while (proofs.peekFirst().to() < to - HISTORY_MILLIS) {
            proofs.removeFirst();
        }
    }

    /** What is learned, as of {@code now}; empty before enough intervals agree, or when none came for a window. */
    public synchronized Optional<Estimate> estimate(long now) {
        return estimate(now, 0);
    }

    /**
     * What is learned, as of {@code now}, with {@code assumed} (ms, 0: none) taken as the interval when no candidate agrees
     * yet: a lone HPA far from the scrape proves only intervals too wide to vote, and probes on the arc of its period
     * ({@link FreshSlots#next}) until its intervals are narrow enough to vote.
     */
    public synchronized Optional<Estimate> estimate(long now, long assumed) {
        Computed last = computed.get(assumed);
        if (last == null || now - last.at() >= 1000 || now < last.at()) {
            if (computed.size() >= MAX_COMPUTED) {
                computed.clear();
            }
            last = new Computed(now, held(compute(now, assumed), now));
            computed.put(assumed, last);
            computations++;
        }
        return Optional.ofNullable(last.estimate());
    }

    /** How many times the estimate was computed ({@link #estimate(long, long)}: at most once a second for each interval assumed). */
    synchronized long computations() {
        return computations;
    }

    /**
     * A converged estimate keeps its phase while the newer intervals' arc (of the same interval) still holds it: converged,
     * for as long as it does; not converged, for {@link #HOLD_MILLIS} (a lone HPA synced just after the scrape proves
     * nothing below it once the probes that bounded it left the window, and would otherwise probe again every few
     * periods), then it is learned again. Kept, not replaced by the newer arc's upper end: the fresh syncs' own proofs
     * end just after the phase they were placed at (the read's latency, rounded up to a bin), so that end would creep
     * later with every window (0.1 s a minute in tools/real-api-bench's run 3) until the arc passed 2 s and fell back to
     * the spread phase. A newer arc that no longer holds the phase (the scrape moved later: the syncs at the phase read
     * the old sample and {@link #below} raises the lower end past it; or an upper end proved earlier) replaces it.
     */
    private Estimate held(Estimate e, long now) {
        if (e == null) {
            return null;
        }
        boolean holds = held != null && held.interval() == e.interval() && e.width() < e.interval()
                && Math.floorMod(e.phase() - held.phase(), e.interval()) < e.width();
        if (e.converged()) {
            if (!holds) {
                held = e;
            }
            heldSince = now;
            return held;
        }
        if (holds && now - heldSince < HOLD_MILLIS) {
            return held;
        }
        held = null;
        return e;
    }

    private Estimate compute(long now, long assumed) {
        if (proofs.isEmpty() || proofs.peekLast().to() < now - HISTORY_MILLIS || proofs.peekLast().to() - proofs.peekFirst().to() < MIN_SPAN_MILLIS) {
            return null;
        }
        long newest = proofs.peekLast().to();
        double[] scores = new double[CANDIDATES.length];
        double best = 0;
        for (int i = 0; i < CANDIDATES.length; i++) {
            long p = CANDIDATES[i];
            if (assumed > 0 && p % assumed != 0 && assumed % p != 0) {
                continue; // a sync of that period cannot follow this interval: not worth a vote that few intervals may win
            }
            List<Proof> window = within(newest - WINDOW_PERIODS * p);
            int n = count(window, p / 2);
            if (window.isEmpty() || newest - window.get(0).to() < 2 * p || now - newest > WINDOW_PERIODS * p || n < MIN_VOTES) {
                continue;
            }
            scores[i] = (double) max(coverage(window, p, p / 2)) / n;
            best = Math.max(best, scores[i]);
        }
        for (int i = 0; i < CANDIDATES.length; i++) { // the largest that agrees about as well as the best
            if (scores[i] * 100 >= AGREE_PERCENT && scores[i] >= best - TIE) {
                return arc(within(newest - WINDOW_PERIODS * CANDIDATES[i]), CANDIDATES[i]);
            }
        }
        if (assumed <= 0) {
            return null;
        }
        // none agrees: the arc of the assumed interval over the whole history (few HPAs prove little a period), to probe on;
        // the probes below the scrape count (their intervals are too wide to vote)
        List<Proof> window = within(newest - HISTORY_MILLIS);
        if (window.size() < MIN_VOTES || newest - window.get(0).to() < 2 * assumed || now - newest > WINDOW_PERIODS * assumed
                || count(window, assumed - 1) == 0) {
            return null;
        }
        Estimate e = arc(window, assumed);
        return e.width() < assumed ? e : null;
    }

    /** The phase for the interval {@code p}: the arc the most intervals under {@code p} wide contain. */
    private static Estimate arc(List<Proof> window, long p) {
        int[] cover = coverage(window, p, p - 1);
        int m = max(cover);
        int bins = cover.length;
        int runs = 0;
        int start = -1;
        int length = 0;
        for (int b = 0; b < bins; b++) {
            if (cover[b] == m && cover[Math.floorMod(b - 1, bins)] != m) {
                runs++;
                start = b;
            }
        }
        if (start < 0) { // every bin at the maximum
            return new Estimate(p, 0, p, 0, m);
        }
        while (length < bins && cover[(start + length) % bins] == m) {
            length++;
        }
        if (runs == 1) {
            int below = below(window, p, start, length);
            start = (start + below) % bins;
            length -= below;
        }
        long phase = ((start + length) % bins) * BIN_MILLIS;
        long width = runs == 1 ? length * BIN_MILLIS : p;
        return new Estimate(p, phase, width, delay(window, p, phase), m);
    }

    /**
     * How many bins at the start of the run {@code [start, start + length)} a sync proved to come before the scrape: a sync
     * in the run, before its last bin, whose newest sample is more than an interval older than the sync (its interval is at
     * least {@code p} wide, too wide to vote) read no sample of the scrape the run holds (that one would be younger), or
     * one whose stamp did not change across it. Either way the scrape came after that sync, or the HPA's own next sync
     * just above it still reads a new sample: only the lower end of the arc rises, never the upper end the syncs go to.
     */
    private static int below(List<Proof> window, long p, int start, int length) {
        int bins = (int) (p / BIN_MILLIS);
        int raise = 0;
        for (Proof x : window) {
            if (x.to() - x.from() >= p) {
                int r = Math.floorMod((int) (Math.floorMod(x.to(), p) / BIN_MILLIS) - start, bins);
                if (r < length - 1) {
                    raise = Math.max(raise, r + 1);
                }
            }
        }
        return raise;
    }

    /** The median age of the new stamps at the readable moment (phase {@code phase} modulo {@code p}) their intervals contain. */
    private static long delay(List<Proof> window, long p, long phase) {
        List<Long> ages = new ArrayList<>();
        for (Proof x : window) {
            long at = FreshSlots.atOrAfter(x.from() + 1, phase, p);
            if (at <= x.to() + BIN_MILLIS && x.stamp() > 0) {
                ages.add(at - x.stamp());
            }
        }
        ages.sort(null);
        return ages.isEmpty() ? 0 : ages.get(ages.size() / 2);
    }

    /** How many intervals at most {@code widest} wide contain each bin of the phase modulo {@code p}. */
    private static int[] coverage(List<Proof> window, long p, long widest) {
        int bins = (int) (p / BIN_MILLIS);
        int[] diff = new int[bins + 1];
        for (Proof x : window) {
            if (x.to() - x.from() > widest) {
                continue;
            }
            long from = Math.floorMod(x.from(), p);
            int a = (int) (from / BIN_MILLIS);
            int b = (int) (Math.floorMod(x.to(), p) / BIN_MILLIS);
            if (from + (x.to() - x.from()) < p) {
                diff[a]++;
                diff[b + 1]--;
            } else if (a <= b) { // wraps around to its own bin or past it (almost a period wide): every bin
                diff[0]++;
                diff[bins]--;
            } else { // wraps
                diff[a]++;
                diff[bins]--;
                diff[0]++;
                diff[b + 1]--;
            }
        }
        int[] cover = new int[bins];
        int c = 0;
        for (int i = 0; i < bins; i++) {
            c += diff[i];
            cover[i] = c;
        }
        return cover;
    }

    private static int count(List<Proof> window, long widest) {
        int n = 0;
        for (Proof x : window) {
            if (x.to() - x.from() <= widest) {
                n++;
            }
        }
        return n;
    }

    private static int max(int[] a) {
        int m = 0;
        for (int v : a) {
            m = Math.max(m, v);
        }
        return m;
    }

    private List<Proof> within(long since) {
        List<Proof> out = new ArrayList<>();
        for (Proof x : proofs) {
            if (x.to() >= since) {
                out.add(x);
            }
        }
        return out;
    }
}
