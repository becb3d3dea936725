package io.hpacontroller.shadow;

import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The pods a replay of the built-in controller's rescale reads. */
class PodsAsDecidedTest {

    private static final Selector WEB = Selector.parse("app=web");

    private static PodInfo pod(String name, long startTime, boolean deleting) {
        return new PodInfo(name, Labels.of(Map.of("app", "web")), PodPhase.RUNNING, ReadyStatus.TRUE, 0, startTime, deleting,
                new ContainerInfo[0], null);
    }

    @Test
    void aScaleDownIsReplayedOnceTheCacheNoLongerHoldsThePodsItRemoved() {
        // 6 pods scaled down to 1: the cache first marks 3 as being deleted and still holds 2 it has not heard of yet
        List<PodInfo> during = new ArrayList<>(List.of(pod("a", 1, false), pod("b", 1, false), pod("c", 1, false)));
        during.addAll(List.of(pod("d", 1, true), pod("e", 1, true), pod("f", 1, true)));
        List<PodInfo> after = List.of(pod("a", 1, false), pod("d", 1, true));
        AtomicInteger lists = new AtomicInteger();
        PodsAsDecided pods = new PodsAsDecided((namespace, selector) -> lists.incrementAndGet() < 3 ? during : after);

        pods.afterScaleDown(1);
        assertThat(pods.list("shop", WEB)).as("the removed pods gone or being deleted").isEqualTo(after);
        assertThat(lists).hasValue(3);

        pods.asTheyAre();
        lists.set(0);
        assertThat(pods.list("shop", WEB)).as("no rescale replayed: the cache as it is").isEqualTo(during);
    }

    @Test
    void aScaleUpIsReplayedWithoutThePodsItStarted() {
        List<PodInfo> now = List.of(pod("old", 1_000, false), pod("new", 5_000, false), pod("pending", PodInfo.NO_TIME, false));
        PodsAsDecided pods = new PodsAsDecided((namespace, selector) -> now);
        pods.beforeScaleUp(5_000);
        assertThat(pods.list("shop", WEB)).extracting(PodInfo::name).containsExactly("old");
    }
}
