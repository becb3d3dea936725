package io.hpacontroller.core.forecast;

import java.util.Arrays;

/**
 * One metric's load, one point per minute, in a ring of 16-bit fixed-point values: each point is
 * {@code q × step} with {@code q} in 0..{@value #MAX_Q} ({@value #MISSING} marks a minute without a sync) and
 * {@code step} a power of two chosen so that the largest value fits. The error of a point is at most half a
 * step, below 1/65534 of the largest value in the series. This is also the persisted form, so memory and
 * storage have the same bound: two bytes a minute.
 *
 * <p>Several values in one minute keep the highest (see the package doc). The step is the finest that holds
 * the largest point held: a larger value doubles it (the held points are rounded once more; the accumulated
 * error stays under one step), and when the largest point leaves the ring it is halved again as far as the
 * next largest allows (exact). Values recorded while an outlier was held keep the coarser step's precision.
 */
final class MinuteSeries {

    static final int MAX_Q = 65534;
    static final char MISSING = 65535;

    private final char[] ring;
    /** The epoch minute of the newest point; meaningless while count is 0. */
    private long newestMinute;
    /** Minutes held, from the oldest to the newest inclusive (missing ones included). */
    private int count;
    /** The value of one quantum, a power of two; 0 while no positive value is held. */
    private double step;
    /** The largest point held, -1 when none. */
    private int maxQ = -1;

    MinuteSeries(int capacity) {
        ring = new char[capacity];
    }

    /** From the persisted form: the points oldest first. */
    MinuteSeries(int capacity, long newestMinute, char[] pointsOldestFirst, double step) {
        this(capacity);
        Arrays.fill(ring, MISSING);
        int keep = Math.min(capacity, pointsOldestFirst.length);
        this.count = keep;
        this.newestMinute = newestMinute;
        this.step = step;
        for (int i = 0; i < keep; i++) {
            long minute = newestMinute - keep + 1 + i;
            ring[slot(minute)] = pointsOldestFirst[pointsOldestFirst.length - keep + i];
        }
        this.maxQ = scanMaxQ();
        if (maxQ <= 0) {
            this.step = 0;
        }
    }

    int capacity() {
        return ring.length;
    }

    int count() {
        return count;
    }

    long newestMinute() {
        return newestMinute;
    }

    double step() {
        return step;
    }

    /** Records a value (finite, not negative) for a minute; a minute older than the ring holds is ignored. */
    void record(long minute, double value) {
        if (count == 0 || minute - newestMinute >= ring.length) {
            Arrays.fill(ring, MISSING);
            newestMinute = minute;
            count = 1;
            maxQ = -1;
            step = 0;
        } else if (minute > newestMinute) {
            boolean largestLeft = false;
            for (long m = newestMinute + 1; m <= minute; m++) {
                int at = slot(m);
                largestLeft |= ring[at] != MISSING && ring[at] == maxQ;
                ring[at] = MISSING;
            }
            count = (int) Math.min(ring.length, count + (minute - newestMinute));
            newestMinute = minute;
            if (largestLeft) {
                refineStep();
            }
        } else if (newestMinute - minute >= count) {
            return;
        }
        int q = quantize(value);
        int at = slot(minute);
        if (ring[at] == MISSING || ring[at] < q) {
            ring[at] = (char) q;
            maxQ = Math.max(maxQ, q);
        }
    }

    private int quantize(double value) {
        if (value <= 0) {
            return 0;
        }
        if (step == 0) {
            step = Math.scalb(1.0, Math.getExponent(value / MAX_Q) + 1);
        }
        double q = value / step;
        if (q > MAX_Q) {
            int doublings = 0;
            while (q > MAX_Q) {
                q /= 2;
                doublings++;
            }
            coarsen(doublings);
        }
        return (int) Math.min(MAX_Q, Math.round(q));
    }

    /** Multiplies the step by 2^doublings, rounding the held points. */
    private void coarsen(int doublings) {
        step = Math.scalb(step, doublings);
        for (int i = 0; i < ring.length; i++) {
            if (ring[i] != MISSING) {
                ring[i] = doublings >= 17 ? 0 : (char) ((ring[i] + (1 << (doublings - 1))) >> doublings);
            }
        }
        maxQ = scanMaxQ();
    }

    /** Halves the step while the largest point allows it (exact); forgets it when nothing positive is held. */
    private void refineStep() {
        maxQ = scanMaxQ();
        if (maxQ <= 0) {
            step = 0;
            return;
        }
        int halvings = 0;
        int lowest = Math.getExponent(step) - Double.MIN_EXPONENT;  // keep the step a normal double
        while (halvings < lowest && (long) maxQ << (halvings + 1) <= MAX_Q) {
            halvings++;
        }
        if (halvings > 0) {
            step = Math.scalb(step, -halvings);
            for (int i = 0; i < ring.length; i++) {
                if (ring[i] != MISSING) {
                    ring[i] = (char) (ring[i] << halvings);
                }
            }
            maxQ <<= halvings;
        }
    }

    private int scanMaxQ() {
        int max = -1;
        for (int i = 0; i < count; i++) {
            char q = ring[slot(newestMinute - i)];
            if (q != MISSING && q > max) {
                max = q;
            }
        }
        return max;
    }

    /** The same points in a ring of another capacity (the newest ones when it is smaller). */
    MinuteSeries resized(int capacity) {
        return new MinuteSeries(capacity, newestMinute, pointsOldestFirst(), step);
    }

    /** The quantized points, oldest first ({@link #MISSING} for a minute without a value). */
    char[] pointsOldestFirst() {
        char[] out = new char[count];
        for (int i = 0; i < count; i++) {
            out[i] = ring[slot(newestMinute - count + 1 + i)];
        }
        return out;
    }

    /** The values, oldest first, NaN for a minute without one. */
    LoadSeries snapshot() {
        double[] values = new double[count];
        for (int i = 0; i < count; i++) {
            char q = ring[slot(newestMinute - count + 1 + i)];
            values[i] = q == MISSING ? Double.NaN : q * step;
        }
        return new LoadSeries(newestMinute - count + 1, values);
    }

    private int slot(long minute) {
        return (int) Math.floorMod(minute, (long) ring.length);
    }
}
