package io.hpacontroller.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A controller process's run as measured from outside, sample by sample: when every HPA was first reconciled
 * (its metrics first queried), the CPU the process had used by then and by 90 s, its peak resident memory, and
 * when the steady window starts (one sync period after every HPA was reconciled once: the start-up's catch-up
 * is over); then the figures per reconcile of that window. Shared by {@code bench}'s process run and the
 * real-API-server run of the tests.
 */
public final class StartUpFigures {

    /**
     * The first reconciles so far.
     *
     * @param hpas        how many distinct HPAs were reconciled (their metrics queried)
     * @param lastSeconds when the last of them first was, in seconds since the process started
     */
    public record FirstReconciles(long hpas, double lastSeconds) {
    }

    /** Where the first reconciles are counted (the stub, the fake metrics server). */
    public interface FirstReconcilesSource<E extends Exception> {
        FirstReconciles get() throws E;
    }

    private final int hpas;
    private final double syncPeriodSeconds;
    private final ProcessMeter controller;
    private double allReconciled = -1;
    private double cpuAtAllReconciled = -1;
    private double cpuAt90 = -1;
    private long peakKib;

    /**
     * @param hpas       the HPAs the controller reconciles
     * @param syncPeriod its sync period
     * @param controller the controller's process
     */
    public StartUpFigures(int hpas, Duration syncPeriod, ProcessMeter controller) {
        this.hpas = hpas;
        this.syncPeriodSeconds = syncPeriod.toMillis() / 1000.0;
        this.controller = controller;
    }

    /**
     * One sample, {@code seconds} after the process started.
     *
     * @param first the first reconciles so far, asked only until every HPA was reconciled once
     * @return whether every HPA was found reconciled once at this sample (and not before)
     */
    public <E extends Exception> boolean sample(double seconds, FirstReconcilesSource<E> first) throws E {
        peakKib = Math.max(peakKib, controller.memory().peakKib());
        boolean allNow = false;
        if (allReconciled < 0) {
            FirstReconciles f = first.get();
            if (f.hpas() >= hpas) {
                allReconciled = f.lastSeconds();
                cpuAtAllReconciled = controller.cpuSeconds();
                allNow = true;
            }
        }
        if (cpuAt90 < 0 && seconds >= 90) {
            cpuAt90 = controller.cpuSeconds();
        }
        return allNow;
    }

    /** Seconds from the process start until every HPA was reconciled once, negative until then. */
    public double allReconciled() {
        return allReconciled;
    }

    /** Whether the steady window may start {@code seconds} after the process started. */
    public boolean steadyAt(double seconds) {
        return allReconciled >= 0 && seconds >= allReconciled + syncPeriodSeconds;
    }

    /**
     * The start-up's figures at the end of the run.
     *
     * @param endSeconds when the run ended, in seconds since the process started
     * @param cpuTotal   the process's CPU seconds then
     * @param memory     its memory then
     */
    public Map<String, String> figures(double endSeconds, double cpuTotal, ProcessMeter.Memory memory) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("seconds_to_first_reconcile_all", seconds(allReconciled));
        f.put("cpu_seconds_to_steady", seconds(cpuAtAllReconciled));
        f.put("cpu_seconds_first_90s", seconds(cpuAt90 < 0 && endSeconds >= 90 ? cpuTotal : cpuAt90)); // the run ended at 90 s, within a sample
        f.put("cpu_seconds_total", seconds(cpuTotal));
        f.put("rss_mib_peak", mib(Math.max(peakKib, memory.peakKib())));
        f.put("rss_mib_end", mib(memory.rssKib()));
        return f;
    }

    /**
     * The steady window's reconciles per second, and the controller's CPU and API requests per reconcile.
     *
     * @param seconds    how long the window lasted
     * @param reconciles the reconciles in it
     * @param cpuSeconds the controller's CPU in it
     * @param requests   the controller's API requests in it (those counted per reconcile)
     */
    public static Map<String, String> steady(double seconds, double reconciles, double cpuSeconds, double requests) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("steady_reconciles_per_second", String.format("%.1f", reconciles / seconds));
        f.put("steady_cpu_ms_per_reconcile", perReconcile(cpuSeconds * 1000, reconciles));
        f.put("steady_api_requests_per_reconcile", perReconcile(requests, reconciles));
        return f;
    }

    /** An amount per reconcile, "n/a" without any. */
    public static String perReconcile(double amount, double reconciles) {
        return reconciles == 0 ? "n/a" : String.format("%.2f", amount / reconciles);
    }

    /** Seconds, "n/a" for a negative (unknown) value. */
    public static String seconds(double s) {
        return s < 0 ? "n/a" : String.format("%.1f", s);
    }

    /** KiB as MiB. */
    public static String mib(double kib) {
        return String.format("%.1f", kib / 1024.0);
    }
}
