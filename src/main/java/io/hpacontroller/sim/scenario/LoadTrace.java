package io.hpacontroller.sim.scenario;

import java.util.List;
import java.util.OptionalLong;
import java.util.Random;

/**
 * The demand on the workload over time, in the metric's unit (CPU millicores for the whole workload,
 * requests per second, queue length, ...). Demand is spread over the Ready pods.
 *
 * <p>Points are sorted by time. With {@link Interpolation#STEP} a point's demand holds until the next point;
 * with {@link Interpolation#LINEAR} demand moves in a straight line between points. Before the first point
 * the demand is the first point's, after the last the last point's.
 *
 * @param points        the trace
 * @param interpolation how demand moves between points
 * @param unit          the demand's unit, for the report
 * @param noise         relative noise added at every step; null for none
 */
public record LoadTrace(List<Point> points, Interpolation interpolation, String unit, Noise noise) {

    /** One point of the trace: from {@code timeMillis} on, the demand is {@code demand}. */
    public record Point(long timeMillis, double demand) {
    }

    public enum Interpolation { STEP, LINEAR }

    /**
     * Gaussian noise: at every step the demand is multiplied by {@code 1 + relative * N(0, 1)} (never below 0).
     *
     * @param relative standard deviation relative to the demand
     * @param seed     seed of the random source
     */
    public record Noise(double relative, long seed) {
        /** The noise source, one draw per step. */
        public Random source() {
            return new Random(seed);
        }

        public double apply(double demand, Random source) {
            return Math.max(0, demand * (1 + relative * source.nextGaussian()));
        }
    }

    /** The demand at a time, without noise. */
    public double demandAt(long t) {
        if (t <= points.get(0).timeMillis()) {
            return points.get(0).demand();
        }
        int lo = 0;
        int hi = points.size() - 1;
        if (t >= points.get(hi).timeMillis()) {
            return points.get(hi).demand();
        }
        // the last point at or before t
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (points.get(mid).timeMillis() <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Point a = points.get(lo);
        if (interpolation == Interpolation.STEP) {
            return a.demand();
        }
        Point b = points.get(lo + 1);
        double f = (double) (t - a.timeMillis()) / (double) (b.timeMillis() - a.timeMillis());
        return a.demand() + f * (b.demand() - a.demand());
    }

    /** When the demand first rises above what it was at the start, empty if it never does. */
    public OptionalLong firstIncrease() {
        for (int i = 1; i < points.size(); i++) {
            Point prev = points.get(i - 1);
            Point p = points.get(i);
            if (p.demand() > prev.demand()) {
                return OptionalLong.of(Math.max(0, interpolation == Interpolation.STEP ? p.timeMillis() : prev.timeMillis()));
            }
        }
        return OptionalLong.empty();
    }
}
