package io.hpacontroller.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The pod cache as the informer fills it and the reconciles read it. */
class PodIndexTest {

    private static final Selector WEB = Selector.parse("app=web");

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /** A pod as the informer reads it ({@link PodFields}), written with fabric8's builder. */
    static PodFields pod(String name, int version, String cpuRequest) {
        return fields(new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("demo").withResourceVersion(String.valueOf(version))
                .withLabels(Map.of("app", "web", "pod", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withNewResources()
                .withRequests(Map.of("cpu", new Quantity(cpuRequest))).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build());
    }

    static PodFields fields(Pod pod) {
        return JSON.convertValue(pod, PodFields.class);
    }

    @Test
    void everyListIsAConsistentSnapshotWhileAnUpdaterRePutsThePods() throws Exception {
        PodIndex index = new PodIndex();
        int pods = 200;
        for (int i = 0; i < pods; i++) {
            index.put("demo/p" + i, pod("p" + i, 0, "100m"));
        }
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch updating = new CountDownLatch(1);
        Thread updater = new Thread(() -> {
            int version = 1;
            while (!stop.get()) {
                for (int i = 0; i < pods && !stop.get(); i++) {
                    index.put("demo/p" + i, pod("p" + i, version, "100m"));
                }
                version++;
                updating.countDown();
            }
        }, "pod-updater");
        updater.start();
        assertThat(updating.await(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        AtomicInteger missing = new AtomicInteger();
        AtomicInteger duplicated = new AtomicInteger();
        AtomicReference<List<String>> example = new AtomicReference<>();
        Thread[] readers = new Thread[2];
        for (int r = 0; r < readers.length; r++) {
            readers[r] = new Thread(() -> {
                for (int n = 0; n < 20_000; n++) {
                    List<PodInfo> list = index.list("demo", WEB);
                    Set<String> names = new HashSet<>();
                    list.forEach(p -> names.add(p.name()));
                    if (names.size() < list.size()) {
                        duplicated.incrementAndGet();
                        example.set(list.stream().map(PodInfo::name).toList());
                    }
                    if (names.size() < pods) {
                        missing.incrementAndGet();
                    }
                }
            }, "pod-lister-" + r);
            readers[r].start();
        }
        for (Thread t : readers) {
            t.join();
        }
        stop.set(true);
        updater.join();
        assertThat(missing.get()).as("lists that missed a pod").isZero();
        assertThat(duplicated.get()).as("lists that named a pod twice, e.g. %s", example.get()).isZero();
    }

    @Test
    void containerListsNoPodUsesAnyMoreAreDropped() {
        PodIndex index = new PodIndex();
        for (int i = 0; i < 100; i++) {
            index.put("demo/p" + i, pod("p" + i, 1, (100 + i) + "m")); // each pod its own request, as after VPA updates
        }
        assertThat(index.sharedContainerLists()).isEqualTo(100);

        for (int i = 0; i < 100; i++) {
            index.put("demo/p" + i, pod("p" + i, 2, "100m"));
        }
        assertThat(index.sharedContainerLists()).as("all pods updated to one request").isEqualTo(1);
        assertThat(index.list("demo", WEB)).hasSize(100)
                .allSatisfy(p -> assertThat(p.containers()).isSameAs(index.list("demo", WEB).get(0).containers()));

        for (int i = 0; i < 50; i++) {
            index.remove("demo/p" + i);
        }
        assertThat(index.sharedContainerLists()).as("half the pods still use it").isEqualTo(1);
        for (int i = 50; i < 100; i++) {
            index.remove("demo/p" + i);
        }
        assertThat(index.sharedContainerLists()).as("no pod left").isZero();
    }
}
