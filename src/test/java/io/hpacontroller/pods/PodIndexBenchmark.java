package io.hpacontroller.pods;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The pod cache on the reconcile path: one {@link PodIndex#list} of an HPA's pods (10 of them, selected
 * by {@code app=...}) in a namespace of {@code podsInNamespace} pods; alone, and beside an informer thread
 * that keeps re-putting pods (one update after another, far more than a real cluster sends).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PodIndexBenchmark {

    @Param({"1000", "10000"})
    public int podsInNamespace;

    private PodIndex index;
    private Selector selector;
    private PodFields[] updates;
    private int next;

    @Setup
    public void setUp() {
        index = new PodIndex();
        updates = new PodFields[podsInNamespace];
        for (int i = 0; i < podsInNamespace; i++) {
            updates[i] = pod(i, 2);
            index.put("bench/p" + i, pod(i, 1));
        }
        selector = Selector.parse("app=app-" + (podsInNamespace / 20));
    }

    private static PodFields pod(int i, int version) {
        return PodIndexTest.fields(new PodBuilder()
                .withNewMetadata().withName("p" + i).withNamespace("bench").withResourceVersion(String.valueOf(version))
                .withLabels(Map.of("app", "app-" + (i / 10), "pod-template-hash", "h" + (i / 10))).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withNewResources()
                .withRequests(Map.of("cpu", new Quantity("100m"))).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build());
    }

    @Benchmark
    @Group("alone")
    public List<PodInfo> listAlone() {
        return index.list("bench", selector);
    }

    @Benchmark
    @Group("beside_updates")
    @GroupThreads(1)
    public List<PodInfo> list() {
        return index.list("bench", selector);
    }

    @Benchmark
    @Group("beside_updates")
    @GroupThreads(1)
    public PodFields update() {
        int i = next;
        next = (i + 1) % updates.length;
        return index.put("bench/p" + i, updates[i]);
    }
}
