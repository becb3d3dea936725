package io.hpacontroller.ops;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.trace.DecisionTrace;

import java.time.Duration;
import java.util.List;

/**
 * What {@code GET /decisions/NAMESPACE/NAME} serves: the HPA's last decision traces, and what a read-only
 * sync needs to decide as this controller would ({@code explain}): its flags and the HPA's remembered
 * history (the recommendations behind the stabilization windows, the scale events behind the policy periods).
 *
 * @param hpa       namespace/name
 * @param leading   whether the instance that answered is the leader (a standby remembers nothing)
 * @param flags     the controller's flags
 * @param history   the HPA's history in this instance
 * @param decisions the last traces, oldest first (at most {@link RecentDecisions#PER_HPA})
 * @param message   why there is nothing, and where to look instead (a 404's); null with decisions
 * @param owner     with {@code --sharding}, the replica that syncs the HPA (its identity), as the answering replica sees
 *                  the ring; absent without sharding, and when no replica claims it (a handover under way)
 */
public record HpaDecisions(String hpa, boolean leading, Flags flags, HistorySnapshot history, List<DecisionTrace> decisions,
                           String message, @JsonInclude(JsonInclude.Include.NON_NULL) String owner) {

    public HpaDecisions {
        decisions = decisions == null ? List.of() : decisions;
        history = history == null ? HistorySnapshot.NEVER_SEEN : history;
    }

    public HpaDecisions(String hpa, boolean leading, Flags flags, HistorySnapshot history, List<DecisionTrace> decisions) {
        this(hpa, leading, flags, history, decisions, null, null);
    }

    /**
     * The controller flags a decision depends on, the sync period, and the APIs whose HPAs it reconciles ({@code --hpa-apis}:
     * apiVersions; null when not known).
     */
    public record Flags(double tolerance, long cpuInitializationPeriodMillis, long initialReadinessDelayMillis,
                        long downscaleStabilizationMillis, boolean scaleToZeroEnabled, long syncPeriodMillis, List<String> hpaApis) {

        public static Flags of(ControllerConfig c, Duration syncPeriod, List<String> hpaApis) {
            return new Flags(c.tolerance(), c.cpuInitializationPeriod().toMillis(), c.initialReadinessDelay().toMillis(),
                    c.downscaleStabilization().toMillis(), c.scaleToZeroEnabled(), syncPeriod.toMillis(), hpaApis);
        }

        public ControllerConfig config() {
            return new ControllerConfig(tolerance, Duration.ofMillis(cpuInitializationPeriodMillis), Duration.ofMillis(initialReadinessDelayMillis),
                    Duration.ofMillis(downscaleStabilizationMillis), scaleToZeroEnabled);
        }
    }
}
