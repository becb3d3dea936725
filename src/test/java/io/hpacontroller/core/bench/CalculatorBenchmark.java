package io.hpacontroller.core.bench;

import io.hpacontroller.core.calc.CalculationException;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.calc.ResourceUsage;
import io.hpacontroller.core.calc.Tolerances;
import io.hpacontroller.core.model.PodMetric;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One calculator decision: a cpu Utilization metric over a realistic mix of pods ({@link PodMix}).
 * {@code utilization}: the proposal from per-pod samples; {@code fromPodMetrics}: the same, starting
 * from the metrics.k8s.io PodMetrics list (summing each pod's containers), as a sync does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CalculatorBenchmark {

    @Param({"10", "100", "1000"})
    public int pods;

    private final ReplicaCalculator calculator = new ReplicaCalculator(300_000, 30_000);
    private final Tolerances tolerances = Tolerances.of(0.1);
    private PodMix mix;
    private Map<String, PodMetric> samples;
    private int current;

    @Setup
    public void setUp() throws CalculationException {
        mix = new PodMix(pods, 42);
        samples = ResourceUsage.perPod(mix.usage, "cpu", "");
        current = pods;
    }

    @Benchmark
    public io.hpacontroller.core.calc.Proposal utilization() throws CalculationException {
        return calculator.utilization(current, 60, "cpu", "", tolerances, mix.pods, samples, PodMix.NOW);
    }

    @Benchmark
    public io.hpacontroller.core.calc.Proposal fromPodMetrics() throws CalculationException {
        return calculator.utilization(current, 60, "cpu", "", tolerances, mix.pods,
                ResourceUsage.perPod(mix.usage, "cpu", ""), PodMix.NOW);
    }
}
