package io.hpacontroller.core.bench;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.sim.VirtualClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * One whole steady-state sync of one HPA (cpu utilization, a realistic {@link PodMix}) through the
 * {@link Reconciler} with in-memory ports: scale read, metric, proposal, normalization, no change, status
 * unchanged and not written. The decision core's own CPU per reconcile, without any API.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ReconcileBenchmark {

    @Param({"10", "100"})
    public int pods;

    private VirtualClock clock;
    private Reconciler reconciler;
    private HorizontalPodAutoscaler hpa;

    @Setup
    public void setUp() {
        PodMix mix = new PodMix(pods, 42);
        FakeCluster cluster = new FakeCluster();
        cluster.pods = mix.pods;
        cluster.podUsage = mix.usage;
        cluster.scale = new ScaleTarget(pods, pods, "app=web", "1");
        hpa = Specs.hpa(1, 10 * pods, Specs.cpuUtilization(60));
        clock = new VirtualClock(PodMix.NOW - VirtualClock.EPOCH.toEpochMilli());
        reconciler = cluster.reconciler(ControllerConfig.defaults(), new HistoryStore(), clock);
        // the first sync writes the status; later ones find it unchanged
        hpa.setStatus(steadySync().status());
        ReconcileOutcome steady = steadySync();
        if (steady.statusWritten() || steady.rescaled() || steady.error() != ReconcileOutcome.ErrorKind.NONE) {
            throw new IllegalStateException("not a steady sync: " + steady);
        }
    }

    /** One sync, 15 s after the previous one, as a controller's syncs come. */
    @Benchmark
    public ReconcileOutcome steadySync() {
        clock.advanceTo(clock.now() + 15_000);
        return reconciler.reconcile(hpa);
    }
}
