package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.HpaKey;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.normalize.LearnedLoad;
import io.hpacontroller.core.schedule.Schedules;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.PredictionTrace;
import io.hpacontroller.core.trace.ScheduleTrace;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Scaling ahead of the load, the two extensions that raise what upstream would decide: the scheduled rules
 * (a minReplicas floor while a rule is active) and predictive scaling (a proposal from the load forecast, which
 * replaces the metrics' recommendation when it is higher). Each returns what it did, for the sync's trace.
 */
final class ScalingAhead {

    private final LoadPrediction prediction = new LoadPrediction();

    /** The effective minReplicas and the scheduled rule that set it, for the trace. */
    record Floor(int minReplicas, ScheduleTrace schedule) {
    }

    /**
     * The effective minReplicas: while a scheduled rule is active, {@code max(spec.minReplicas, rule's minReplicas)}
     * capped by maxReplicas (the highest rule wins among overlapping ones); otherwise spec.minReplicas. The trace
     * names the rule in force.
     */
    static Floor minReplicas(HpaControls controls, long now, int specMinReplicas, int maxReplicas) {
        Schedules schedules = controls.schedules();
        if (schedules == null) {
            return new Floor(specMinReplicas, ScheduleTrace.NONE);
        }
        Optional<Schedules.ActiveRule> active = schedules.activeAt(Instant.ofEpochMilli(now));
        int min = active.map(a -> Math.min(Math.max(specMinReplicas, a.minReplicas()), Math.max(specMinReplicas, maxReplicas)))
                .orElse(specMinReplicas);
        return new Floor(min, new ScheduleTrace(active.map(Schedules.ActiveRule::describe).orElse(null), specMinReplicas, min));
    }

    /**
     * Without the predict control, forgets what was learned; with it, what makes the setting unusable for this spec
     * (as the controls' error message), if anything.
     */
    Optional<String> check(HpaKey key, LearnedLoad learned, PredictSetting setting, HorizontalPodAutoscalerSpec spec) {
        if (setting == null) {
            prediction.stop(key, learned);
            return Optional.empty();
        }
        return setting.capacityProblem(spec.getMetrics() == null ? 1 : Math.max(1, spec.getMetrics().size()))
                .map(problem -> PredictAnnotation.NAME + ": " + problem);
    }

    /**
     * What the forecast proposes, raised (and so to replace the recommendation) when it is above {@code desiredReplicas}.
     *
     * @param traces          the metrics as the sync computed them (in spec order, with their identities)
     * @param currentReplicas spec.replicas of the target
     * @param statusReplicas  status.replicas of the target
     */
    PredictionTrace predict(HpaKey key, LearnedLoad learned, PredictSetting setting, List<String> identities, List<MetricTrace> traces,
                            int currentReplicas, int statusReplicas, int maxReplicas, Tolerances tolerances, long now, int desiredReplicas) {
        PredictionTrace p = prediction.predict(key, learned, setting, identities, traces, currentReplicas, statusReplicas, maxReplicas,
                tolerances, now);
        return p.replicas() > desiredReplicas ? new PredictionTrace(p.setting(), p.metrics(), p.replicas(), true, p.note()) : p;
    }

    /** The rescale reason's metric of a raised prediction: the metric whose forecast won. */
    static String rescaleMetric(PredictionTrace p, PredictSetting setting) {
        return "the load predicted " + GoDuration.format(setting.horizon()) + " ahead for "
                + p.metrics().stream().filter(m -> m.replicas() == p.replicas()).findFirst().orElseThrow().metric();
    }

    /** The HPA was deleted. */
    void forget(HpaKey key) {
        prediction.forget(key);
    }

    /** HPAs whose learned load is held decoded. */
    int predicting() {
        return prediction.size();
    }
}
