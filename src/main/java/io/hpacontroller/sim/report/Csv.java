package io.hpacontroller.sim.report;

/** RFC 4180 cells and the number format the outputs share. */
final class Csv {

    private Csv() {
    }

    static String cell(String s) {
        if (s == null) {
            return "";
        }
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    /** A number with at most three decimals and no trailing zeros; "inf" for +infinity. */
    static String number(double v) {
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (Double.isNaN(v)) {
            return "";
        }
        return java.math.BigDecimal.valueOf(Math.round(v * 1000), 3).stripTrailingZeros().toPlainString();
    }

    /** A count, empty when negative (none). */
    static String count(int n) {
        return n < 0 ? "" : Integer.toString(n);
    }

    /** The demand Ready pods can serve, empty when the workload has no capacity (+infinity). */
    static String capacity(double capacity) {
        return Double.isInfinite(capacity) ? "" : number(capacity);
    }

    /** Simulation milliseconds as seconds. */
    static String seconds(long millis) {
        return number(millis / 1000.0);
    }
}
