package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.trace.ReconcileOutcome;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Safety properties checked at every step and after every sync, whatever the load and the faults. They are
 * not scaling rules (the core owns those); they are what must hold for any rule set that never scales on bad
 * data:
 * <ol>
 *   <li>once the replica count is within [minReplicas, maxReplicas] it stays there (every step), and the
 *       workload has as many pods as spec.replicas says;</li>
 *   <li>a sync whose metrics calls all failed does not change the replica count (when it is within bounds), unless a
 *       metric's fallback control proposed its replicas; in mode Preview no scale is ever written;</li>
 *   <li>a scale write that failed changes nothing, and the outcome does not claim a rescale; a rescale the
 *       outcome reports is what the workload has;</li>
 *   <li>the status written is consistent with what happened: currentReplicas as read, desiredReplicas and
 *       lastScaleTime as written (in Preview: desiredReplicas as decided), AbleToScale False after a failed write, ScalingActive False when no
 *       metric could be read;</li>
 *   <li>no exception escapes the core (it would show as an internal error).</li>
 * </ol>
 */
final class Invariants {

    /** Violations kept with their description; the count goes on beyond. */
    static final int KEPT = 20;

    private final List<String> violations = new ArrayList<>();
    private long checks;
    private long violationCount;
    private boolean inside;

    long checks() {
        return checks;
    }

    long violationCount() {
        return violationCount;
    }

    List<String> violations() {
        return violations;
    }

    /** The state at one step: once within [min, max], the replicas stay there; the pods follow spec.replicas. */
    void checkStep(long time, HorizontalPodAutoscaler hpa, int specReplicas, int pods) {
        var spec = hpa.getSpec();
        int min = spec.getMinReplicas() == null ? 1 : spec.getMinReplicas();
        int max = spec.getMaxReplicas() == null ? Integer.MAX_VALUE : spec.getMaxReplicas();
        boolean now = specReplicas >= min && specReplicas <= max;
        Supplier<String> at = () -> "t=" + GoDuration.seconds(time) + "s " + hpa.getMetadata().getName() + ": ";
        expect(now || !inside, at, () -> specReplicas + " replicas, outside [" + min + ", " + max + "] after having been inside");
        expect(pods == specReplicas, at, () -> pods + " pods for spec.replicas " + specReplicas);
        inside |= now;
    }

    /** What one sync did, as the simulated cluster saw it. */
    record Sync(long time, HorizontalPodAutoscaler hpa, int replicasBefore, int replicasAfter, ReconcileOutcome outcome,
                int metricsCalls, int metricsFailures, int scaleWrites, int scaleWritesSucceeded) {
    }

    void check(Sync s) {
        var spec = s.hpa().getSpec();
        int min = spec.getMinReplicas() == null ? 1 : spec.getMinReplicas();
        int max = spec.getMaxReplicas() == null ? Integer.MAX_VALUE : spec.getMaxReplicas();
        boolean insideBefore = s.replicasBefore() >= min && s.replicasBefore() <= max;
        ReconcileOutcome o = s.outcome();
        HorizontalPodAutoscalerStatus status = s.hpa().getStatus();
        Supplier<String> at = () -> "t=" + GoDuration.seconds(s.time()) + "s " + s.hpa().getMetadata().getName() + ": ";

        expect(!insideBefore || (s.replicasAfter() >= min && s.replicasAfter() <= max),
                at, () -> "replicas left [" + min + ", " + max + "]: " + s.replicasBefore() + " -> " + s.replicasAfter());
        boolean preview = o.trace() != null && o.trace().controls().preview();
        // a metric in fallback (the HPA's fallback control) proposes its replicas although it failed: that may scale
        boolean fallback = o.trace() != null && o.trace().metrics() != null && o.trace().metrics().stream().anyMatch(m -> m.fallback());
        expect(!preview || s.scaleWrites() == 0, at, () -> "a scale write in mode Preview");
        boolean allMetricsFailed = s.metricsCalls() > 0 && s.metricsFailures() == s.metricsCalls() && !fallback;
        expect(!(allMetricsFailed && insideBefore) || s.replicasAfter() == s.replicasBefore(),
                at, () -> "scaled " + s.replicasBefore() + " -> " + s.replicasAfter() + " although every metrics call failed");
        boolean writeFailed = s.scaleWrites() > 0 && s.scaleWritesSucceeded() == 0;
        expect(!writeFailed || (s.replicasAfter() == s.replicasBefore() && !o.rescaled()),
                at, () -> "a failed scale write changed replicas " + s.replicasBefore() + " -> " + s.replicasAfter() + " (rescaled=" + o.rescaled() + ")");
        expect(o.rescaled() ? s.replicasAfter() == o.desiredReplicas() : s.replicasAfter() == s.replicasBefore(),
                at, () -> "outcome (rescaled=" + o.rescaled() + ", desired " + o.desiredReplicas() + ") does not match the workload ("
                        + s.replicasBefore() + " -> " + s.replicasAfter() + ")");
        expect(o.errorMessage() == null || !o.errorMessage().startsWith("internal error"),
                at, () -> "exception in the core: " + o.errorMessage());

        if (status == null) {
            expect(false, at, () -> "no status was written");
            return;
        }
        expect(o.currentReplicas() < 0 || Objects.equals(status.getCurrentReplicas(), s.replicasBefore()),
                at, () -> "status.currentReplicas " + status.getCurrentReplicas() + " but the scale said " + s.replicasBefore());
        if (o.rescaled()) {
            expect(Objects.equals(status.getDesiredReplicas(), s.replicasAfter()),
                    at, () -> "status.desiredReplicas " + status.getDesiredReplicas() + " after scaling to " + s.replicasAfter());
            String expected = Instant.ofEpochMilli(VirtualClock.epochMillis(s.time())).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
            expect(Objects.equals(status.getLastScaleTime(), expected),
                    at, () -> "status.lastScaleTime " + status.getLastScaleTime() + ", expected " + expected);
        } else if (preview) {
            expect(Objects.equals(status.getDesiredReplicas(), o.desiredReplicas()),
                    at, () -> "status.desiredReplicas " + status.getDesiredReplicas() + " but Preview decided " + o.desiredReplicas());
        } else if (o.error() == ReconcileOutcome.ErrorKind.NONE) {
            expect(Objects.equals(status.getDesiredReplicas(), s.replicasAfter()),
                    at, () -> "status.desiredReplicas " + status.getDesiredReplicas() + " but replicas stayed " + s.replicasAfter());
        }
        if (writeFailed) {
            expect(condition(status, "AbleToScale", "False"), at, () -> "AbleToScale is not False after a failed scale write");
        }
        if (allMetricsFailed && insideBefore) {
            expect(condition(status, "ScalingActive", "False"),
                    at, () -> "ScalingActive is not False although no metric could be read");
        }
    }

    private static boolean condition(HorizontalPodAutoscalerStatus status, String type, String value) {
        if (status.getConditions() == null) {
            return false;
        }
        for (HorizontalPodAutoscalerCondition c : status.getConditions()) {
            if (type.equals(c.getType())) {
                return value.equals(c.getStatus());
            }
        }
        return false;
    }

    private void expect(boolean ok, Supplier<String> at, Supplier<String> violation) {
        checks++;
        if (!ok) {
            violationCount++;
            if (violations.size() < KEPT) {
                violations.add(at.get() + violation.get());
            }
        }
    }
}
