package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.controller.LiveTestBase;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Mirror HPAs (autoscaling.hpa-controller.io/v1) against the mock cluster: reconciled, keyed apart, and standing back from a built-in twin. */
class MirrorHpaTest extends LiveTestBase {

    private static final String MIRROR_KEY = HpaApi.MIRROR.key(NS, "web");

    private static MirrorHpa mirror(HorizontalPodAutoscaler v2) {
        MirrorHpa m = new MirrorHpa();
        m.setMetadata(v2.getMetadata());
        m.setSpec(v2.getSpec());
        return m;
    }

    private MirrorHpa readMirror(String name) {
        return client.resources(MirrorHpa.class).inNamespace(NS).withName(name).get();
    }

    private long mirrorSyncs() {
        return syncs.stream().filter(r -> r.key().toString().equals(MIRROR_KEY) && r.outcome() != null).count();
    }

    @Test
    void aMirrorHpaIsReconciledAndItsBuiltinNamesakeOnAnotherTargetIsLeftToTheBuiltinController() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "api", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        cluster.workloads().setCpuPerPod(NS, "api", "100m");
        client.resources(MirrorHpa.class).inNamespace(NS).resource(mirror(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)))).create();
        create(hpa(NS, "web", "apps/v1", "Deployment", "api", 1, 4, cpuUtilization(50)));

        startController(LiveFixtures.fastOptions().withApis(Set.of(HpaApi.MIRROR), false));

        await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            MirrorHpa m = readMirror("web");
            assertThat(m.getStatus()).as("written after the scale").isNotNull();
            assertThat(m.getStatus().getCurrentReplicas()).isEqualTo(4);
            assertThat(m.getStatus().getReference()).isEqualTo("Deployment/web");
            assertThat(m.getStatus().getTargets()).isEqualTo("cpu: 100%/50%");
            assertThat(condition(m.toCore(), "ScalingLimited")).isEqualTo("True/TooManyReplicas");
            assertThat(events("SuccessfulRescale")).singleElement().satisfies(e -> {
                assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("autoscaling.hpa-controller.io/v1");
                assertThat(e.getInvolvedObject().getUid()).isEqualTo(m.getMetadata().getUid());
            });
        });
        long before = mirrorSyncs();
        await().atMost(Waits.STATE).until(() -> mirrorSyncs() >= before + 4);
        assertThat(replicas("api")).as("the built-in HPA of the same name is the built-in controller's").isEqualTo(2);
        assertThat(readHpa("web").getStatus()).as("its status is not written here").isNull();
        assertThat(syncs).allSatisfy(r -> assertThat(r.key()).hasToString(MIRROR_KEY));
    }

    @Test
    void aMirrorHpasStatusCarriesTheDecisionOfTheSyncThatWroteIt() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        client.resources(MirrorHpa.class).inNamespace(NS).resource(mirror(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)))).create();
        List<LastDecision> written = new CopyOnWriteArrayList<>();
        try (Watch ignored = client.resources(MirrorHpa.class).inNamespace(NS).withName("web").watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, MirrorHpa m) {
                if (m.getStatus() != null && m.getStatus().getLastDecision() != null) {
                    written.add(m.getStatus().getLastDecision());
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            startController(LiveFixtures.fastOptions().withApis(Set.of(HpaApi.MIRROR), false));

            await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
            await().atMost(Waits.STATE).untilAsserted(() -> assertThat(written).anySatisfy(d -> {
                assertThat(d.action()).isEqualTo("ScaleUp");
                assertThat(d.currentReplicas()).isEqualTo(2);
                assertThat(d.desiredReplicas()).isEqualTo(4);
                assertThat(d.summary()).startsWith("scaling up from 2 to 4: ");
                assertThat(Instant.parse(d.time())).isNotNull();
            }));
        }
        // at 4 the next sync writes currentReplicas 4 and the decision that held there; then the status stays as it is
        await().atMost(Waits.STATE).untilAsserted(() -> {
            LastDecision d = readMirror("web").getStatus().getLastDecision();
            assertThat(d).isNotNull();
            assertThat(d.action()).isEqualTo("None");
            assertThat(d.currentReplicas()).isEqualTo(4);
            assertThat(d.summary()).startsWith("holding at 4: ");
        });
    }

    @Test
    void aMirrorHpaOnTheTargetOfABuiltinHpaRefusesToScaleAndNamesIt() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        create(hpa(NS, "web-builtin", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)));
        client.resources(MirrorHpa.class).inNamespace(NS).resource(mirror(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)))).create();

        startController(LiveFixtures.fastOptions().withApis(Set.of(HpaApi.MIRROR), false));

        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readMirror("web").toCore(), "ScalingActive")).isEqualTo("False/AmbiguousSelector");
            assertThat(events("AmbiguousSelector")).extracting(Event::getMessage).singleElement().asString()
                    .contains(NS + "/web-builtin").contains(MIRROR_KEY);
        });
        long before = mirrorSyncs();
        await().atMost(Waits.STATE).until(() -> mirrorSyncs() >= before + 4);
        assertThat(replicas("web")).as("never scaled while the built-in HPA is there").isEqualTo(2);
        assertThat(readHpa("web-builtin").getStatus()).isNull();

        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web-builtin").delete();
        await().atMost(Waits.STATE).until(() -> replicas("web") == 4);
    }

    @Test
    void withBothApisAnHpaAndItsMirrorTwinOfTheSameNameAreTwoHpas() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "api", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        cluster.workloads().setCpuPerPod(NS, "api", "25m");
        client.resources(MirrorHpa.class).inNamespace(NS).resource(mirror(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50)))).create();
        create(hpa(NS, "web", "apps/v1", "Deployment", "api", 1, 4, cpuUtilization(50)));

        startController(LiveFixtures.fastOptions().withApis(Set.of(HpaApi.BUILTIN, HpaApi.MIRROR), false));

        await().atMost(Waits.STATE).until(() -> replicas("web") == 4 && replicas("api") == 1);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            // each status is written after its scale
            assertThat(readMirror("web").getStatus()).isNotNull().extracting(s -> s.getDesiredReplicas()).isEqualTo(4);
            assertThat(readHpa("web").getStatus()).isNotNull().extracting(s -> s.getDesiredReplicas()).isEqualTo(1);
        });
        assertThat(controller.histories().keys()).containsExactlyInAnyOrder(HpaKey.parse(NS + "/web"), HpaKey.parse(MIRROR_KEY));
        assertThat(HpaKey.of(readMirror("web").toCore())).hasToString(MIRROR_KEY);
        assertThat(controller.hpaCount()).isEqualTo(2);
    }
}
