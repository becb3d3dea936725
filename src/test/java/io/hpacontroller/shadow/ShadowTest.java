package io.hpacontroller.shadow;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.controller.LiveTestBase;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shadow mode against the mock cluster, the test playing the built-in controller by writing the HPA's
 * status as it would: each status write is compared, the shadow starts from the built-in's replica count,
 * counts the built-in's scale-ups in its policy periods, and writes nothing.
 */
class ShadowTest extends LiveTestBase {

    private final List<Shadow.Comparison> comparisons = new CopyOnWriteArrayList<>();

    private void startShadow() throws InterruptedException {
        startController(LiveFixtures.fastOptions().withApis(Set.of(), true));
        controller.shadow().addListener(new Shadow.Listener() {
            @Override
            public void onComparison(Shadow.Comparison c) {
                comparisons.add(c);
            }

            @Override
            public void onGone(String namespace, String name) {
            }
        });
    }

    /** The built-in controller's status write after a sync that went from {@code current} to {@code desired}. */
    private void builtinWrites(String name, int current, int desired, boolean rescaled) {
        HorizontalPodAutoscaler h = readHpa(name);
        String lastScaleTime = rescaled ? Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
                : h.getStatus() == null ? null : h.getStatus().getLastScaleTime();
        h.setStatus(new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(current).withDesiredReplicas(desired)
                .withLastScaleTime(lastScaleTime).build());
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).updateStatus();
    }

    @Test
    void eachStatusWriteOfTheBuiltinControllerIsComparedAndNothingIsWritten() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m"); // twice the target
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        startShadow();
        cluster.clearRequests();

        builtinWrites("web", 2, 4, true);
        await().atMost(Waits.STATE).until(() -> comparisons.size() == 1);
        builtinWrites("web", 2, 3, true); // a built-in controller that decided otherwise
        await().atMost(Waits.STATE).until(() -> comparisons.size() == 2);

        assertThat(comparisons.get(0)).satisfies(c -> {
            assertThat(c.currentReplicas()).isEqualTo(2);
            assertThat(c.builtinDesired()).isEqualTo(4);
            assertThat(c.shadowDesired()).isEqualTo(4);
            assertThat(c.agrees()).isTrue();
        });
        assertThat(comparisons.get(1)).satisfies(c -> {
            assertThat(c.agrees()).isFalse();
            assertThat(c.reason()).startsWith("cpu resource utilization (percentage of request) above target");
        });
        assertThat(replicas("web")).isEqualTo(2);
        assertThat(cluster.requests()).as("the shadow only reads; the two status writes are this test's, playing the built-in controller"
                        + " (pods and deployment status: the fake workload controller's)")
                .filteredOn(r -> !r.method().equals("GET") && !r.path().endsWith("/pods") && !r.path().contains("/pods/")
                        && !r.path().endsWith("/deployments/web/status"))
                .extracting(r -> r.method() + " " + r.path())
                .containsExactly("PUT /apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/web/status",
                        "PUT /apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/web/status");
        assertThat(cluster.requests())
                .anySatisfy(r -> assertThat(r.path()).contains("/apis/metrics.k8s.io/"));
    }

    @Test
    void theShadowComputesWhatTheBuiltinControllerDoesWhichIgnoresOurControlAnnotations() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        HorizontalPodAutoscaler h = hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50));
        // for the built-in controller these are just annotations (and a typo would stop our own reconcile)
        h.getMetadata().setAnnotations(java.util.Map.of(io.hpacontroller.core.controls.ControlAnnotations.MODE, "Suspended",
                io.hpacontroller.core.controls.ControlAnnotations.PREFIX + "sync-perod", "3s"));
        create(h);
        startShadow();

        builtinWrites("web", 2, 4, true);
        await().atMost(Waits.STATE).until(() -> comparisons.size() == 1);

        assertThat(comparisons.get(0)).satisfies(c -> {
            assertThat(c.shadowDesired()).isEqualTo(4);
            assertThat(c.agrees()).isTrue();
            // with the annotations read, this HPA would be refused (SPEC, InvalidAnnotation) before any metric is read
            assertThat(c.outcome().error()).isEqualTo(io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind.NONE);
            assertThat(c.outcome().proposedReplicas()).as("computed from the metrics").isEqualTo(4);
            assertThat(c.outcome().trace().controls()).isEqualTo(io.hpacontroller.core.trace.ControlsTrace.NONE);
        });
    }

    @Test
    void theBuiltinControllersScaleUpsCountInTheShadowsPolicyPeriods() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        startShadow();
        // one pod per minute at most
        create(new HorizontalPodAutoscalerBuilder(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)))
                .editSpec().withNewBehavior().withNewScaleUp().addNewPolicy().withType("Pods").withValue(1).withPeriodSeconds(60).endPolicy()
                .endScaleUp().endBehavior().endSpec().build());
        await().atMost(Waits.STATE).until(() -> readHpa("web") != null);

        builtinWrites("web", 2, 3, true);
        await().atMost(Waits.STATE).until(() -> comparisons.size() == 1);
        client.apps().deployments().inNamespace(NS).withName("web").scale(3);
        await().atMost(Waits.STATE).until(() -> client.pods().inNamespace(NS).list().getItems().size() == 3);
        builtinWrites("web", 3, 3, false); // held by the policy: it already added a pod this minute
        await().atMost(Waits.STATE).until(() -> comparisons.size() == 2);

        assertThat(comparisons).allSatisfy(c -> assertThat(c.shadowDesired()).as(c.reason()).isEqualTo(c.builtinDesired()));
        assertThat(comparisons.get(1).reason()).contains("ScalingLimited=True ScaleUpLimit");
        assertThat(comparisons).noneMatch(Shadow.Comparison::warmingUp);
    }

    @Test
    void anHpaDeletedWhileItIsComparedIsForgottenThroughTheControllersPathAndLeavesNothing() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 2)).create();
        cluster.workloads().setCpuPerPod(NS, "web", "100m");
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        startShadow();
        List<String> gone = new CopyOnWriteArrayList<>();
        controller.shadow().addListener(new Shadow.Listener() {
            @Override
            public void onComparison(Shadow.Comparison c) {
                // deleted while it is compared: the informer's delete forgets it before the comparison ends
                client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").delete();
                await().atMost(Waits.STATE).until(() -> !gone.isEmpty());
            }

            @Override
            public void onGone(String namespace, String name) {
                gone.add(namespace + "/" + name);
            }
        });

        builtinWrites("web", 2, 4, true);
        // once from the informer's delete, once from the check at the end of the comparison: both through the one path
        await().atMost(Waits.STATE).until(() -> gone.size() == 2);
        assertThat(gone).containsOnly(NS + "/web");
        assertThat(controller.shadow().hpasHeld()).as("nothing the comparison re-created is left").isZero();
    }
}
