package io.hpacontroller.core.calc;

/**
 * Integer arithmetic that saturates instead of wrapping, and the float-to-replica-count conversion.
 * Upstream wraps silently on overflow in places; a wrapped sum would turn a huge metric into a tiny
 * (or negative) replica count, so every sum here stops at the bounds of a long.
 */
final class Arith {

    private Arith() {
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    static long saturatedMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
            return lo;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    /**
     * {@code ceil(x)} as a replica count: clamped to [0, Integer.MAX_VALUE] instead of wrapping like a
     * Go int32 conversion; NaN (0/0) counts as 0.
     */
    static int ceilToReplicas(double x) {
        if (Double.isNaN(x) || x <= 0) {
            return 0;
        }
        double c = Math.ceil(x);
        return c >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) c;
    }

    /** {@code ceil(x)} as a long, saturated. */
    static long ceilToLong(double x) {
        if (Double.isNaN(x)) {
            return 0;
        }
        double c = Math.ceil(x);
        if (c >= Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        if (c <= Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        return (long) c;
    }
}
