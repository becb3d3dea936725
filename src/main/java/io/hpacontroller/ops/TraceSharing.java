package io.hpacontroller.ops;

import io.hpacontroller.core.calc.PodCounts;
import io.hpacontroller.core.calc.Proposal;
import io.hpacontroller.core.calc.ToleranceVerdict;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.MetricTrace;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An HPA's next decision trace, with every part that equals the same part of its last one taken from the last
 * one. Successive traces of an HPA differ in a few fields (the time, the metrics' timestamps, the age of a
 * window's recommendation); the rest, most of all the strings each sync builds anew (metric descriptions,
 * condition messages), is then held once for all the HPA's kept traces instead of once per trace. Written out
 * for the three records that carry the changing fields (no reflection: it runs at every sync); any other part
 * is shared when it is equal as a whole.
 */
final class TraceSharing {

    private TraceSharing() {
    }

    static DecisionTrace share(DecisionTrace older, DecisionTrace newer) {
        if (older == null || older == newer) {
            return newer;
        }
        return new DecisionTrace(same(older.hpa(), newer.hpa()), newer.time(), newer.currentReplicas(), newer.minReplicas(),
                newer.maxReplicas(), metrics(older.metrics(), newer.metrics()), newer.selectedMetric(),
                same(older.metricsVerdict(), newer.metricsVerdict()), newer.rawDesiredReplicas(), same(older.rescaleRule(), newer.rescaleRule()),
                normalization(older.normalization(), newer.normalization()), same(older.constraintsApplied(), newer.constraintsApplied()),
                same(older.scaleToZero(), newer.scaleToZero()), newer.desiredReplicas(), newer.action(), newer.rescaled(),
                same(older.reason(), newer.reason()), newer.error(), same(older.errorReason(), newer.errorReason()),
                same(older.errorMessage(), newer.errorMessage()), same(older.controls(), newer.controls()),
                same(older.schedule(), newer.schedule()), same(older.prediction(), newer.prediction()));
    }

    private static List<MetricTrace> metrics(List<MetricTrace> older, List<MetricTrace> newer) {
        if (older.size() != newer.size()) {
            return newer;
        }
        List<MetricTrace> shared = new ArrayList<>(newer.size());
        for (int i = 0; i < newer.size(); i++) {
            shared.add(metric(older.get(i), newer.get(i)));
        }
        return List.copyOf(shared);
    }

    // No whole-record equals first: a metric's timestamp and a window's age change at every sync, and the
    // records' generated equals is slow with the C1 compiler alone (the image's JVM options)

    private static MetricTrace metric(MetricTrace o, MetricTrace n) {
        return new MetricTrace(same(o.type(), n.type()), same(o.name(), n.name()), same(o.metric(), n.metric()),
                same(o.targetType(), n.targetType()), n.target(), n.current(), n.timestamp(), proposal(o.calculation(), n.calculation()),
                n.replicas(), same(o.errorReason(), n.errorReason()), same(o.errorMessage(), n.errorMessage()), same(o.error(), n.error()),
                n.specError(), n.failingSince(), n.fallback());
    }

    private static Proposal proposal(Proposal o, Proposal n) {
        if (o == null || n == null || o.replicas() != n.replicas() || Double.compare(o.usageRatio(), n.usageRatio()) != 0
                || o.rawReplicas() != n.rawReplicas() || o.usage() != n.usage() || o.utilization() != n.utilization()
                || !samePods(o.pods(), n.pods()) || !sameTolerance(o.tolerance(), n.tolerance())
                || !Objects.equals(o.rebalancing(), n.rebalancing())) {
            return n;
        }
        return o;
    }

    private static boolean samePods(PodCounts o, PodCounts n) {
        return o == n || o != null && n != null && o.ready() == n.ready() && o.unready() == n.unready() && o.missing() == n.missing()
                && o.ignored() == n.ignored() && o.samplesWithoutPod() == n.samplesWithoutPod();
    }

    private static boolean sameTolerance(ToleranceVerdict o, ToleranceVerdict n) {
        return o == n || o != null && n != null && Double.compare(o.ratio(), n.ratio()) == 0 && o.within() == n.within()
                && Objects.equals(o.direction(), n.direction()) && Double.compare(o.tolerance(), n.tolerance()) == 0 && o.source() == n.source();
    }

    private static Normalization normalization(Normalization o, Normalization n) {
        if (o == null || n == null) {
            return n;
        }
        Normalization shared = new Normalization(n.recommendation(), n.stabilized(), n.replicas(), same(o.stabilization(), n.stabilization()),
                same(o.rateLimit(), n.rateLimit()), same(o.constraintsApplied(), n.constraintsApplied()), n.wokeFromZero(),
                same(o.ableToScaleReason(), n.ableToScaleReason()), same(o.ableToScaleMessage(), n.ableToScaleMessage()), n.limited(),
                same(o.limitReason(), n.limitReason()), same(o.limitMessage(), n.limitMessage()));
        boolean unchanged = o.recommendation() == n.recommendation() && o.stabilized() == n.stabilized() && o.replicas() == n.replicas()
                && o.wokeFromZero() == n.wokeFromZero() && o.limited() == n.limited() && shared.stabilization() == o.stabilization()
                && shared.rateLimit() == o.rateLimit() && shared.constraintsApplied() == o.constraintsApplied()
                && shared.ableToScaleReason() == o.ableToScaleReason() && shared.ableToScaleMessage() == o.ableToScaleMessage()
                && shared.limitReason() == o.limitReason() && shared.limitMessage() == o.limitMessage();
        return unchanged ? o : shared;
    }

    /** The older value when the newer equals it. */
    private static <T> T same(T older, T newer) {
        return newer == older || newer == null || !newer.equals(older) ? newer : older;
    }
}
