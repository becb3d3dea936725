package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.forecast.Forecast;
import io.hpacontroller.core.forecast.LoadHistory;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.normalize.LearnedLoad;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.PredictionTrace.PredictedMetric;

import io.hpacontroller.core.trace.PredictionTrace;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Predictive scaling at one sync of an HPA that opts in: learn each metric's load from what the sync observed,
 * forecast it at {@code now + horizon}, and turn the forecast into a proposal through the calculator's rule.
 *
 * <p>What is learned per metric (a total that does not depend on the replica count, see the package doc of
 * {@code core.forecast}): for a per-pod metric (Resource and ContainerResource, Pods) the usage ratio times the
 * target times the pods it was measured over (a utilization's percent summed over the ready pods, an average
 * value's total); for an AverageValue Object or External metric the total ({@code ratio × target ×
 * status.replicas}); for a Value target the value itself. The predicted proposal is then the calculator's
 * {@code ceil(ratio × pods)} (the current count inside the tolerance) with the ratio the forecast would give over
 * the pods the metric is measured over now ({@link ReplicaCalculator#fromUsageRatio}).
 *
 * <p>The learned load lives in {@link LearnedLoad} in its persisted form ({@link LoadHistory#encode},
 * at most 64 KiB), written at the first sync of each new minute, so a restored history (a new leader, explain)
 * brings it along; between two writes it is kept decoded here, by HPA key. A history without predict forgets it.
 * A forecast is computed once per metric and minute (a Holt-Winters fit costs 24 passes over the history).
 */
final class LoadPrediction {

    /** The decoded learned load of one HPA, with the stored text it was read from or last written to. */
    private static final class Learned {
        String stored;
        final PredictSetting setting;
        final LoadHistory load;
        final Map<String, CachedForecast> forecasts = new HashMap<>();
        long writtenMinute;
        String note;

        Learned(String stored, PredictSetting setting, LoadHistory load, long writtenMinute, String note) {
            this.stored = stored;
            this.setting = setting;
            this.load = load;
            this.writtenMinute = writtenMinute;
            this.note = note;
        }
    }

    private record CachedForecast(long nowMinute, long targetMinute, Forecast forecast) {
    }

    private final Map<HpaKey, Learned> learned = new ConcurrentHashMap<>();

    /** The HPA was deleted: forget its decoded load (its history goes with it). */
    void forget(HpaKey key) {
        learned.remove(key);
    }

    /** HPAs whose learned load is held decoded. */
    int size() {
        return learned.size();
    }

    /** The HPA does not predict (any more): nothing of its load is kept. */
    void stop(HpaKey key, LearnedLoad load) {
        learned.remove(key);
        if (load.encoded() != null) {
            load.set(null);
        }
    }

    /**
     * Learns what the sync observed and proposes from the forecast.
     *
     * @param traces          the metrics as the sync computed them (in spec order, with their identities)
     * @param currentReplicas spec.replicas of the target
     * @param statusReplicas  status.replicas of the target
     * @param maxReplicas     spec.maxReplicas: a forecast worth more is discarded
     */
    PredictionTrace predict(HpaKey key, LearnedLoad load, PredictSetting setting, List<String> identities, List<MetricTrace> traces,
                            int currentReplicas, int statusReplicas, int maxReplicas, Tolerances tolerances, long now) {
        Learned l = learnedOf(key, load, setting);
        long nowMinute = Math.floorDiv(now, 60_000L);
        List<PredictedMetric> out = new ArrayList<>();
        int best = -1;
        for (int i = 0; i < traces.size(); i++) {
            MetricTrace t = traces.get(i);
            PredictedMetric m = t == null || t.failed() || t.calculation() == null ? null
                    : predictMetric(l, identities.get(i), t, currentReplicas, statusReplicas, maxReplicas, tolerances, now, nowMinute);
            if (m != null) {
                out.add(m);
                best = m.discarded() ? best : Math.max(best, m.replicas());
            }
        }
        l.load.retainOnly(identities);
        if (nowMinute != l.writtenMinute && !l.load.metrics().isEmpty()) {
            l.stored = l.load.encode();
            l.writtenMinute = nowMinute;
            load.set(l.stored);
        }
        String note = l.note;
        l.note = null;
        return new PredictionTrace(describe(setting), out, best, false, note);
    }

    /** One metric: its load learned from what the sync observed, its forecast and proposal; null when it measured nothing. */
    private PredictedMetric predictMetric(Learned l, String metric, MetricTrace t, int currentReplicas, int statusReplicas, int maxReplicas,
                                          Tolerances tolerances, long now, long nowMinute) {
        Kind kind = Kind.of(t);
        int measured = kind.measuredOver(t, statusReplicas);
        if (measured <= 0) {
            return null;
        }
        l.load.record(metric, Instant.ofEpochMilli(now), kind.load(t, measured));
        Forecast f = forecast(l, metric, now, nowMinute);
        if (f instanceof Forecast.NoForecast none) {
            return new PredictedMetric(metric, Double.NaN, 0, -1, none.reason() == Forecast.Reason.DISCARDED, none.message());
        }
        Forecast.Predicted p = (Forecast.Predicted) f;
        Proposal proposal = ReplicaCalculator.fromUsageRatio(currentReplicas, kind.ratio(p.load(), t.target(), measured),
                kind.proposalPods(measured, statusReplicas), tolerances);
        if (proposal.replicas() > maxReplicas) {
            return new PredictedMetric(metric, p.load(), p.at().toEpochMilli(), -1, true, p.how() + ": the forecast is worth "
                    + proposal.replicas() + " replicas, more than maxReplicas " + maxReplicas + "; discarded");
        }
        return new PredictedMetric(metric, p.load(), p.at().toEpochMilli(), proposal.replicas(), false, p.how());
    }

    /** The decoded load of the HPA, read again when its history holds another stored text (restored) or the setting changed. */
    private Learned learnedOf(HpaKey key, LearnedLoad kept, PredictSetting setting) {
        String stored = kept.encoded();
        Learned l = learned.get(key);
        if (l != null && l.stored == stored && l.setting.equals(setting)) {
            return l;
        }
        LoadHistory load = setting.newHistory();
        String note = null;
        if (stored != null) {
            Parsed<LoadHistory> read = LoadHistory.decode(stored, setting.history());
            if (read instanceof Parsed.Valid<LoadHistory> v) {
                load = v.value();
            } else {
                note = ((Parsed.Invalid<LoadHistory>) read).message() + "; learning starts again";
            }
        }
        l = new Learned(stored, setting, load, Long.MIN_VALUE, note);
        learned.put(key, l);
        return l;
    }

    private static Forecast forecast(Learned l, String metric, long now, long nowMinute) {
        long targetMinute = Math.floorDiv(now + l.setting.horizon().toMillis(), 60_000L);
        CachedForecast c = l.forecasts.get(metric);
        if (c != null && c.nowMinute() == nowMinute && c.targetMinute() == targetMinute) {
            return c.forecast();
        }
        Forecast f = l.setting.forecast(l.load.series(metric), Instant.ofEpochMilli(now));
        l.forecasts.put(metric, new CachedForecast(nowMinute, targetMinute, f));
        return f;
    }

    /** "HoltWinters season 24h0m0s, horizon 5m0s, history 72h0m0s", "Linear horizon 2m0s, history 30m0s" (Go durations). */
    static String describe(PredictSetting s) {
        return s.model() + (s.season() == null ? "" : " season " + GoDuration.format(s.season()) + ",") + " horizon "
                + GoDuration.format(s.horizon()) + ", history " + GoDuration.format(s.history());
    }

    /** How a metric's observation becomes a load independent of the replica count, and a forecast load a usage ratio again. */
    private enum Kind {
        /** Utilization or AverageValue of Resource, ContainerResource and Pods: the ratio over the pods that were measured. */
        PER_POD,
        /** AverageValue of Object and External: the total over status.replicas. */
        OVER_REPLICAS,
        /** Value of Object and External: the value itself. */
        VALUE;

        static Kind of(MetricTrace t) {
            boolean total = "Object".equals(t.type()) || "External".equals(t.type());
            if (!total) {
                return PER_POD;
            }
            return "Value".equals(t.targetType()) ? VALUE : OVER_REPLICAS;
        }

        /** The pods the observed ratio was taken over: the ready pods (and samples of unknown pods for an average value). */
        int measuredOver(MetricTrace t, int statusReplicas) {
            Proposal p = t.calculation();
            return switch (this) {
                case PER_POD -> p.pods() == null ? 0 : p.pods().ready() + ("Utilization".equals(t.targetType()) ? 0 : p.pods().samplesWithoutPod());
                case OVER_REPLICAS -> statusReplicas;
                case VALUE -> 1;
            };
        }

        /** The pods a predicted ratio is multiplied by: as measured, or status.replicas (the ready pods, roughly) for a Value. */
        int proposalPods(int measuredOver, int statusReplicas) {
            return this == VALUE ? statusReplicas : measuredOver;
        }

        double load(MetricTrace t, int measuredOver) {
            return t.calculation().usageRatio() * t.target() * measuredOver;
        }

        double ratio(double load, double target, int measuredOver) {
            return load / (target * measuredOver);
        }
    }
}
