package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class HpaSelectorIndexTest {

    private final HpaSelectorIndex index = new HpaSelectorIndex();

    private static PodInfo pod(String name, Map<String, String> labels) {
        return new PodInfo(name, Labels.of(labels), PodPhase.RUNNING, ReadyStatus.TRUE, 0, 0, false, new ContainerInfo[0], null);
    }

    @Test
    void anHpaAloneOnItsPodsControlsThem() {
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        assertThat(index.controllers("ns/web", "ns", Selector.parse("app=web"), pods)).containsExactly("ns/web");
        assertThat(index.controllers("ns/api", "ns", Selector.parse("app=api"), List.of(pod("api-1", Map.of("app", "api")))))
                .containsExactly("ns/api");
    }

    @Test
    void overlappingSelectorsAreAmbiguousEvenWhenTheyDiffer() {
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web", "tier", "front")));
        index.controllers("ns/by-app", "ns", Selector.parse("app=web"), pods);
        List<String> controllers = index.controllers("ns/by-tier", "ns", Selector.parse("tier in (front,back)"), pods);
        assertThat(controllers).containsExactly("ns/by-app", "ns/by-tier");
        assertThat(index.controllers("ns/by-app", "ns", Selector.parse("app=web"), pods)).hasSize(2);
    }

    @Test
    void aSelectorWithoutEqualityRequirementsIsStillChecked() {
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        index.controllers("ns/exists", "ns", Selector.parse("app"), pods);
        assertThat(index.controllers("ns/web", "ns", Selector.parse("app=web"), pods)).containsExactly("ns/exists", "ns/web");
    }

    @Test
    void namespacesDoNotMixAndForgettingReleasesThePods() {
        List<PodInfo> pods = List.of(pod("web-1", Map.of("app", "web")));
        index.controllers("a/web", "a", Selector.parse("app=web"), pods);
        assertThat(index.controllers("b/web", "b", Selector.parse("app=web"), pods)).containsExactly("b/web");
        index.controllers("a/web-2", "a", Selector.parse("app=web"), pods);
        assertThat(index.controllers("a/web", "a", Selector.parse("app=web"), pods)).hasSize(2);
        index.forget("a/web-2");
        assertThat(index.controllers("a/web", "a", Selector.parse("app=web"), pods)).containsExactly("a/web");
    }

    @Test
    void aChangedSelectorReplacesTheOldOne() {
        List<PodInfo> web = List.of(pod("web-1", Map.of("app", "web")));
        index.controllers("ns/h", "ns", Selector.parse("app=web"), web);
        index.controllers("ns/h", "ns", Selector.parse("app=api"), List.of());
        assertThat(index.controllers("ns/web", "ns", Selector.parse("app=web"), web)).containsExactly("ns/web");
    }
}
