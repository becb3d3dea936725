package io.hpacontroller.sim.scenario;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.reconcile.ControllerConfig;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A what-if scenario: the HPA specs to compare, the controller's flags, the workload, the metrics pipeline,
 * the demand trace and (for soak runs) the faults to inject. Times are milliseconds from the start of the
 * simulation. The file format is described in docs/simulator.md ("Scenario file").
 *
 * @param name        a title for the report (the file name when the scenario has none)
 * @param description free text for the report
 * @param durationMillis how long to simulate
 * @param stepMillis  the resolution of the workload model (demand, pod usage, capacity)
 * @param controller  the kube-controller-manager flags
 * @param workload    the workload model, one independent copy per HPA
 * @param resourceMetrics metrics-server, for Resource and ContainerResource metrics
 * @param customMetrics   the custom and external metrics adapter, for Pods, Object and External metrics
 * @param load        the demand trace
 * @param hpas        the HPA specs, each in its own simulated cluster
 * @param faults      faults to inject; {@link Faults#NONE} for none
 * @param setups      per HPA spec (same order as {@code hpas}): the controller, workload and metrics pipelines it runs
 *                    with, the scenario's own unless the spec overrides some of them
 */
public record Scenario(String name, String description, long durationMillis, long stepMillis, Controller controller,
                       Workload workload, MetricsPipeline resourceMetrics, MetricsPipeline customMetrics, LoadTrace load,
                       List<HorizontalPodAutoscaler> hpas, Faults faults, List<SpecSetup> setups) {

    public Scenario {
        hpas = List.copyOf(hpas);
        if (setups == null) {
            SpecSetup same = new SpecSetup(controller, workload, resourceMetrics, customMetrics, List.of());
            setups = hpas.stream().map(h -> same).toList();
        }
        setups = List.copyOf(setups);
        if (setups.size() != hpas.size()) {
            throw new IllegalArgumentException("one setup per HPA spec: " + setups.size() + " for " + hpas.size());
        }
    }

    /** Every HPA spec with the scenario's own controller, workload and metrics pipelines. */
    public Scenario(String name, String description, long durationMillis, long stepMillis, Controller controller,
                    Workload workload, MetricsPipeline resourceMetrics, MetricsPipeline customMetrics, LoadTrace load,
                    List<HorizontalPodAutoscaler> hpas, Faults faults) {
        this(name, description, durationMillis, stepMillis, controller, workload, resourceMetrics, customMetrics, load, hpas, faults, null);
    }

    /** The sync period of spec {@code i}: its HPA's sync-period annotation, or its setup's controller flag. */
    public long syncPeriodMillis(int i) {
        Duration flag = Duration.ofMillis(setups.get(i).controller().syncPeriodMillis());
        return HpaControls.of(hpas.get(i)) instanceof Parsed.Valid<HpaControls> v ? v.value().syncPeriodOr(flag).toMillis() : flag.toMillis();
    }

    /** The scenario's own setup, which a spec runs with unless it overrides some of it. */
    public SpecSetup setup() {
        return new SpecSetup(controller, workload, resourceMetrics, customMetrics, List.of());
    }

    /**
     * What one HPA spec runs with: the scenario's controller flags, workload and metrics pipelines, or its own where
     * the spec overrides them (to compare e.g. a faster metrics pipeline or faster readiness side by side).
     *
     * @param overrides what differs from the scenario, as written ("horizontal-pod-autoscaler-sync-period 5s", "resource metrics
     *                  delay 2s", "readyAfter 10s"); empty when nothing
     */
    public record SpecSetup(Controller controller, Workload workload, MetricsPipeline resourceMetrics, MetricsPipeline customMetrics,
                            List<String> overrides) {
        public SpecSetup {
            overrides = List.copyOf(overrides);
        }
    }

    /**
     * The controller: sync period and phase, and the flags the decisions depend on.
     *
     * @param syncPeriodMillis {@code --horizontal-pod-autoscaler-sync-period}
     * @param syncPhaseMillis  time of the first sync; later syncs follow every period
     * @param config           the remaining flags, as the core takes them
     * @param cadence          {@code --sync-cadence}: Spread syncs at the phase, Fresh (issue 40) from the phase until the
     *                         metrics pipeline's cadence is learned, then just after each new sample
     * @param freshSpreadMillis {@code --fresh-sync-spread}
     */
    public record Controller(long syncPeriodMillis, long syncPhaseMillis, ControllerConfig config, SyncCadence cadence, long freshSpreadMillis) {

        /** The spread cadence, as upstream's fixed phase. */
        public Controller(long syncPeriodMillis, long syncPhaseMillis, ControllerConfig config) {
            this(syncPeriodMillis, syncPhaseMillis, config, SyncCadence.SPREAD, DEFAULT_FRESH_SPREAD_MILLIS);
        }

        /** The default of {@code --fresh-sync-spread}. */
        public static final long DEFAULT_FRESH_SPREAD_MILLIS = 2_000;

        public Controller withCadence(SyncCadence c) {
            return new Controller(syncPeriodMillis, syncPhaseMillis, config, c, freshSpreadMillis);
        }

        public Controller withSyncPhase(long phaseMillis) {
            return new Controller(syncPeriodMillis, phaseMillis, config, cadence, freshSpreadMillis);
        }
    }

    /**
     * The workload an HPA scales (a Deployment and its pods).
     *
     * @param replicas           spec.replicas at the start; these pods have been Ready for long
     * @param labels             the pods' labels, which are also the scale's selector
     * @param containers         the pods' containers with their requests
     * @param startedAfterMillis from pod creation to Running (status.startTime)
     * @param readyAfterMillis   from pod creation to Ready
     * @param startupCpu         extra CPU a pod burns right after it starts, null for none
     * @param capacity           demand one Ready pod can serve, in demand units; null when unlimited
     * @param cpuPerDemand       CPU millicores a pod uses per unit of demand it serves
     * @param idleCpuMilli       CPU millicores a running pod uses with no demand
     * @param memoryMilli        memory a running pod uses (milli-bytes, as the core counts), constant
     * @param requestsWritten    each container's requests as the API server would write them back ("256Mi", "500m"), by
     *                           container name then resource
     */
    public record Workload(int replicas, Map<String, String> labels, List<ContainerInfo> containers,
                           long startedAfterMillis, long readyAfterMillis, StartupCpu startupCpu, Double capacity,
                           double cpuPerDemand, long idleCpuMilli, long memoryMilli, Map<String, Map<String, String>> requestsWritten) {
    }

    /**
     * A start-up CPU burst (JIT, cache warm-up): extra usage from the pod's start for a while.
     *
     * @param milli          extra CPU millicores
     * @param durationMillis how long after the start
     */
    public record StartupCpu(long milli, long durationMillis) {
    }

    /**
     * Faults injected into the ports, for soak runs.
     *
     * @param seed               seed of the random source (each HPA's cluster derives its own)
     * @param metricsFailure     probability that one call to a metrics API fails
     * @param scaleWriteFailure  probability that one write of the scale fails (HTTP 500)
     * @param scaleWriteConflict probability that one write of the scale is refused with a conflict (HTTP 409)
     */
    public record Faults(long seed, double metricsFailure, double scaleWriteFailure, double scaleWriteConflict) {
        public static final Faults NONE = new Faults(0, 0, 0, 0);

        public boolean any() {
            return metricsFailure > 0 || scaleWriteFailure > 0 || scaleWriteConflict > 0;
        }
    }
}
