package io.hpacontroller.core.bench;

import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.Normalizer;
import io.hpacontroller.core.normalize.ScaleEvents;
import io.hpacontroller.core.normalize.ScalingPolicy;
import io.hpacontroller.core.normalize.ScalingRules;
import io.hpacontroller.core.normalize.SelectPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The normalizer with a long history: {@code history} remembered recommendations (a stabilization window
 * of {@code history} syncs of 15 s) and, with behavior, as many scale events per direction inside the
 * policies' period. Each call is one sync 15 s after the previous one, as a controller makes them, with a
 * proposal that wanders between 5 and 40: the history keeps its length (each sync takes the slot of the
 * entry that left the window).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NormalizerBenchmark {

    private static final long SYNC = 15_000L;

    @Param({"20", "240", "1000"})
    public int history;

    private HpaHistory legacyHistory;
    private HpaHistory behaviorHistory;
    private Behavior behavior;
    private long windowMillis;
    private long now;
    private int current;
    private int step;

    @Setup
    public void setUp() {
        now = PodMix.NOW;
        windowMillis = history * SYNC;
        int windowSeconds = (int) (windowMillis / 1000);
        List<ScalingPolicy> up = List.of(new ScalingPolicy(ScalingPolicy.Type.PODS, 4, windowSeconds),
                new ScalingPolicy(ScalingPolicy.Type.PERCENT, 100, windowSeconds / 2));
        List<ScalingPolicy> down = List.of(new ScalingPolicy(ScalingPolicy.Type.PODS, 2, windowSeconds),
                new ScalingPolicy(ScalingPolicy.Type.PERCENT, 10, windowSeconds / 2));
        behavior = new Behavior(new ScalingRules(windowSeconds, SelectPolicy.MAX, up, null),
                new ScalingRules(windowSeconds, SelectPolicy.MAX, down, null));
        legacyHistory = new HpaHistory();
        behaviorHistory = new HpaHistory();
        List<HpaHistory.Recommendation> recs = new ArrayList<>();
        for (int i = history; i > 0; i--) {
            recs.add(new HpaHistory.Recommendation(5 + (i * 7) % 36, now - i * SYNC));
            behaviorHistory.addScaleEvent(i % 2 == 0, 1, now - i * SYNC);
        }
        legacyHistory.setRecommendations(recs);
        behaviorHistory.setRecommendations(recs);
        current = 20;
    }

    private int nextProposal() {
        step++;
        return 5 + (step * 13) % 36;
    }

    @Benchmark
    public Normalization legacy() {
        now += SYNC;
        return Normalizer.normalizeDesiredReplicas(legacyHistory, now, null, windowMillis, 20, nextProposal(), 1, 100);
    }

    @Benchmark
    public Normalization withBehavior() {
        now += SYNC;
        Normalization n = Normalizer.normalizeDesiredReplicas(behaviorHistory, now, behavior, 0, current, nextProposal(), 1, 100);
        ScaleEvents.record(behaviorHistory, behavior, current, n.replicas(), now);
        current = n.replicas();
        return n;
    }
}
