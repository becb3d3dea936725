package io.hpacontroller.core.forecast;

/**
 * A snapshot of one metric's load, one value per minute from {@link #firstMinute()} (epoch minutes) on,
 * NaN for a minute without one (the controller was not running, or the metric could not be read).
 */
public final class LoadSeries {

    private static final LoadSeries EMPTY = new LoadSeries(0, new double[0]);

    private final long firstMinute;
    private final double[] values;

    /** The values are taken as they are (not copied). */
    LoadSeries(long firstMinute, double[] values) {
        this.firstMinute = firstMinute;
        this.values = values;
    }

    /** A series from values, oldest first, NaN for a missing minute (copied). */
    public static LoadSeries of(long firstMinute, double... values) {
        return new LoadSeries(firstMinute, values.clone());
    }

    static LoadSeries empty() {
        return EMPTY;
    }

    public long firstMinute() {
        return firstMinute;
    }

    /** The epoch minute of the newest value; {@code firstMinute - 1} when empty. */
    public long newestMinute() {
        return firstMinute + values.length - 1;
    }

    /** Minutes covered, from the first to the newest inclusive. */
    public int size() {
        return values.length;
    }

    public boolean isEmpty() {
        return values.length == 0;
    }

    /** The value of the i-th minute (0 = the first), NaN when missing. */
    public double value(int i) {
        return values[i];
    }

    /** The values themselves, for the models of this package (not to be changed). */
    double[] values() {
        return values;
    }

    /** Minutes that have a value. */
    public int observed() {
        int n = 0;
        for (double v : values) {
            if (!Double.isNaN(v)) {
                n++;
            }
        }
        return n;
    }

    /** The minutes before {@code minute} (epoch minutes). */
    public LoadSeries before(long minute) {
        if (minute > newestMinute()) {
            return this;
        }
        int keep = (int) Math.max(0, minute - firstMinute);
        double[] head = new double[keep];
        System.arraycopy(values, 0, head, 0, keep);
        return new LoadSeries(firstMinute, head);
    }

    /** The newest {@code minutes} minutes (all when there are fewer). */
    public LoadSeries last(int minutes) {
        if (minutes >= values.length) {
            return this;
        }
        double[] tail = new double[minutes];
        System.arraycopy(values, values.length - minutes, tail, 0, minutes);
        return new LoadSeries(newestMinute() - minutes + 1, tail);
    }
}
