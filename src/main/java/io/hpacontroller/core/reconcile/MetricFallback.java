package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.controls.Fallback;
import io.hpacontroller.core.normalize.MetricFailures;
import io.hpacontroller.core.normalize.MetricFailures.MetricFailure;

import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.MetricTrace;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;

/**
 * The fallback control within one sync (KEP-5679, KEDA's {@code fallback}): a metric that has failed at every
 * sync for {@link Fallback#after()} proposes {@link Fallback#replicas()} instead of blocking. The failure's start
 * is this controller's own observation, kept in the HPA's {@link MetricFailures} (so it survives with the history);
 * a metric that gives a value, leaves the spec or fails for a reason no wait can fix (its spec is invalid) ends
 * its failure. A Warning event {@value #STARTED} announces a fallback when it starts, a Normal
 * {@value #ENDED} when it ends. Without the control nothing is measured and any remembered failure is forgotten.
 */
final class MetricFallback {

    /** The event (Warning) when a metric's fallback starts, and the reason of ScalingActive=True while one is in force. */
    static final String STARTED = "FallbackActive";
    /** The event (Normal) when a metric's fallback ends. */
    static final String ENDED = "FallbackEnded";

    private final Fallback fallback;
    private final MetricFailures failures;
    private final HorizontalPodAutoscaler hpa;
    private final EventRecorder events;
    private final long now;

    /**
     * @param fallback the HPA's fallback control, null when it has none
     */
    MetricFallback(Fallback fallback, MetricFailures failures, HorizontalPodAutoscaler hpa, EventRecorder events, long now) {
        this.fallback = fallback;
        this.failures = failures;
        this.hpa = hpa;
        this.events = events;
        this.now = now;
    }

    /** A metric failed at this sync: its trace with the failure's start, and the fallback's proposal once it has failed long enough. */
    MetricTrace failed(String identity, MetricTrace t) {
        if (fallback == null) {
            return t;
        }
        if (t.specError()) {
            ended(identity, t.described() + " is invalid (" + t.errorMessage() + "), which no wait can fix");
            return t;
        }
        MetricFailure f = failures.metricFailed(identity, now);
        if (now - f.since() < fallback.after().toMillis()) {
            return t.failingSince(f.since(), -1);
        }
        if (!f.fallback()) {
            failures.fallbackStarted(identity);
            events.record(hpa, EventRecorder.Type.Warning, STARTED, t.described() + " has failed since " + time(f.since()) + " ("
                    + DecisionSummary.duration(now - f.since()) + "): proposing the fallback of " + fallback.replicas()
                    + " replicas until it gives a value again");
        }
        return t.failingSince(f.since(), fallback.replicas());
    }

    /** A metric gave a value at this sync: its failure, if any, ends. */
    void succeeded(String identity, MetricTrace t) {
        if (fallback != null) {
            ended(identity, t.described() + " gives a value again");
        }
    }

    /** After every metric was computed: the failures of metrics no longer in the spec end. */
    void keepOnly(Set<String> identities) {
        for (MetricFailure f : failures.keepMetricFailuresOf(identities)) {
            announceEnd(f, f.metric() + " is no longer in the spec");
        }
    }

    /** Without the control (or with metrics not read at all): forgets every failure, announcing the end of a fallback in force. */
    static void forgetAll(MetricFailures failures, HorizontalPodAutoscaler hpa, EventRecorder events, long now, String why, boolean announce) {
        MetricFallback off = new MetricFallback(null, failures, hpa, events, now);
        for (MetricFailure f : failures.keepMetricFailuresOf(Set.of())) {
            if (announce) {
                off.announceEnd(f, why);
            }
        }
    }

    /** Whether any failure is remembered (cheap check before {@link #forgetAll}). */
    static boolean anyRemembered(MetricFailures failures) {
        return !failures.all().isEmpty();
    }

    private void ended(String identity, String why) {
        MetricFailure f = failures.metricRecovered(identity);
        if (f != null) {
            announceEnd(f, why);
        }
    }

    private void announceEnd(MetricFailure f, String why) {
        if (f.fallback()) {
            events.record(hpa, EventRecorder.Type.Normal, ENDED, why + " after failing for " + DecisionSummary.duration(now - f.since())
                    + ": the fallback replicas are no longer proposed");
        }
    }

    /**
     * The ScalingActive=True message while fallbacks are in force. It names the start of each failure, not its
     * length, so it stays the same from sync to sync (a status is written only when it changed).
     */
    static String conditionMessage(List<MetricTrace> inFallback) {
        StringBuilder sb = new StringBuilder("the HPA was able to compute a replica count with the fallback of ")
                .append(inFallback.get(0).replicas()).append(" replicas for ");
        for (int i = 0; i < inFallback.size(); i++) {
            MetricTrace m = inFallback.get(i);
            sb.append(i == 0 ? "" : i == inFallback.size() - 1 ? " and " : ", ").append(m.described()).append(", failing since ")
                    .append(time(m.failingSince()));
        }
        return sb.toString();
    }

    private static String time(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
