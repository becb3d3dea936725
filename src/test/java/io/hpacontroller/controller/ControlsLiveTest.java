package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.deployment;
import static io.hpacontroller.controller.LiveFixtures.externalAverage;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-HPA controls (issue 15) in the live controller against the mock cluster, at the production ratio on the
 * manual clock: each HPA's own metric, so the requests show which HPA read what.
 */
class ControlsLiveTest extends LiveTestBase {

    private static final String EXTERNAL = "/apis/external.metrics.k8s.io/";

    /** An HPA on its own deployment (3 replicas) and its own external metric, which asks for {@code desired} replicas. */
    private HorizontalPodAutoscaler annotatedHpa(String name, int desired, Map<String, String> annotations) {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, name, 3)).create();
        cluster.metrics().setExternalMetric(NS, name + "_queue", String.valueOf(desired * 10));
        HorizontalPodAutoscaler h = hpa(NS, name, "apps/v1", "Deployment", name, 1, 20, externalAverage(name + "_queue", "10"));
        h.getMetadata().setAnnotations(new HashMap<>(annotations));
        create(h);
        return h;
    }

    private long metricReads(String hpa) {
        return cluster.count("GET", p -> p.startsWith(EXTERNAL) && p.endsWith("/" + hpa + "_queue"));
    }

    private long scaleRequests(String deployment) {
        return cluster.requests().stream().filter(r -> r.path().endsWith("/deployments/" + deployment + "/scale")).count();
    }

    private long scaleWrites(String deployment) {
        return cluster.requests().stream().filter(r -> !r.method().equals("GET") && r.path().endsWith("/deployments/" + deployment + "/scale")).count();
    }

    private long statusWrites(String hpa) {
        return cluster.requests().stream().filter(r -> !r.method().equals("GET")
                && r.path().matches(".*/horizontalpodautoscalers/" + hpa + "/status(\\?.*)?")).count();
    }

    private static long syncsOf(List<Sync> syncs, String hpa) {
        return syncs.stream().filter(s -> s.outcome() != null && s.outcome().key().toString().equals(NS + "/" + hpa)).count();
    }

    private String message(String hpa, String type) {
        return readHpa(hpa).getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow().getMessage();
    }

    private void annotate(String hpa, Map<String, String> annotations) {
        HorizontalPodAutoscaler h = readHpa(hpa);
        h.getMetadata().setAnnotations(new HashMap<>(annotations));
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(h).update();
        // the informer saw the change (it is picked up at the next allowed time, a period after the last sync)
        await().atMost(Waits.STATE).until(() -> annotations.equals(controller.cached(key(NS + "/" + hpa)).getMetadata().getAnnotations()));
    }

    /** Runs the controller until the HPA's next sync (a period at most). */
    private void runUntilItsNextSync(String hpa) {
        for (int s = 0; s <= PRODUCTION_PERIOD.toSeconds(); s++) {
            if (syncsOf(run(1), hpa) > 0) {
                return;
            }
        }
        throw new AssertionError(hpa + " was not synced within a period");
    }

    @Test
    void previewDecidesAndWritesTheStatusButNeverTheScaleUntilItIsSwitchedToAuto() throws Exception {
        annotatedHpa("preview", 6, Map.of(ControlAnnotations.MODE, "Preview"));
        annotatedHpa("auto", 6, Map.of());
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 2);

        List<Sync> syncs = run(46); // at once, then at its first two slots a period on or more

        assertThat(syncsOf(syncs, "preview")).isEqualTo(3);
        assertThat(replicas("auto")).isEqualTo(6);
        assertThat(replicas("preview")).isEqualTo(3);
        assertThat(scaleWrites("preview")).as("no scale write in the request log").isZero();
        assertThat(scaleWrites("auto")).as("the log shows scale writes (one, or more after a conflict)").isPositive();
        await().atMost(Waits.STATE).untilAsserted(() -> {
            HorizontalPodAutoscaler h = readHpa("preview");
            assertThat(h.getStatus().getDesiredReplicas()).as("what it would do").isEqualTo(6);
            assertThat(h.getStatus().getCurrentReplicas()).isEqualTo(3);
            assertThat(h.getStatus().getLastScaleTime()).isNull();
            assertThat(condition(h, "AbleToScale")).isEqualTo("False/Preview");
            assertThat(condition(h, "ScalingActive")).isEqualTo("True/ValidMetricFound");
        });
        assertThat(message("preview", "AbleToScale")).contains("would scale from 3 to 6");
        assertThat(events("PreviewRescale")).singleElement().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("preview");
            assertThat(e.getMessage()).contains("New size: 6").contains("not written");
        });
        assertThat(syncs).filteredOn(s -> s.outcome().key().toString().equals(NS + "/preview"))
                .allSatisfy(s -> assertThat(s.outcome().trace().controls().preview()).isTrue());

        // kubectl annotate preview autoscaling.hpa-controller.io/mode-
        annotate("preview", Map.of());
        runUntilItsNextSync("preview");
        assertThat(replicas("preview")).as("Auto at the next sync, without a restart").isEqualTo(6);
        assertThat(scaleWrites("preview")).isPositive();
    }

    @Test
    void suspendedReadsNoMetricAndWritesNothingButItsCondition() throws Exception {
        annotatedHpa("suspended", 6, Map.of(ControlAnnotations.MODE, "Suspended"));
        annotatedHpa("auto", 6, Map.of());
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 2);

        List<Sync> syncs = run(61); // at once, then at its first three slots a period on or more

        assertThat(syncsOf(syncs, "suspended")).as("it was synced all along").isEqualTo(4);
        assertThat(metricReads("auto")).isGreaterThanOrEqualTo(4);
        assertThat(metricReads("suspended")).as("no metrics request at all").isZero();
        assertThat(scaleRequests("suspended")).as("nor any scale read or write").isZero();
        assertThat(statusWrites("suspended")).as("one condition, written once").isEqualTo(1);
        assertThat(condition(readHpa("suspended"), "ScalingActive")).isEqualTo("False/Suspended");
        assertThat(replicas("suspended")).isEqualTo(3);
        assertThat(replicas("auto")).isEqualTo(6);
        assertThat(events("SuccessfulRescale")).extracting(e -> e.getInvolvedObject().getName()).containsExactly("auto");
    }

    @Test
    void anInvalidAnnotationStopsOnlyItsHpaWithAConditionAndAnEvent() throws Exception {
        annotatedHpa("typo", 6, Map.of(ControlAnnotations.MODE, "Suspnded"));
        annotatedHpa("negative", 6, Map.of(ControlAnnotations.FALLBACK_REPLICAS, "-1", ControlAnnotations.FALLBACK_AFTER, "2m"));
        annotatedHpa("zero", 6, Map.of(ControlAnnotations.SYNC_PERIOD, "0"));
        annotatedHpa("unknown", 6, Map.of(ControlAnnotations.PREFIX + "sync-perod", "3s"));
        annotatedHpa("good", 6, Map.of(ControlAnnotations.SYNC_PERIOD, "5s"));
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 5);

        List<Sync> syncs = run(31); // at once, then at its slots from a period on

        assertThat(syncsOf(syncs, "typo")).isEqualTo(2);
        assertThat(syncsOf(syncs, "good")).as("the others are unaffected: its own period of 5 s").isEqualTo(6);
        assertThat(replicas("good")).isEqualTo(6);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            for (String bad : List.of("typo", "negative", "zero", "unknown")) {
                assertThat(condition(readHpa(bad), "ScalingActive")).as(bad).isEqualTo("False/InvalidAnnotation");
                assertThat(replicas(bad)).as(bad).isEqualTo(3);
                assertThat(metricReads(bad)).as(bad).isZero();
            }
        });
        assertThat(message("typo", "ScalingActive")).contains("autoscaling.hpa-controller.io/mode: must be one of Auto, Preview, Suspended, got \"Suspnded\"");
        assertThat(message("negative", "ScalingActive")).contains("autoscaling.hpa-controller.io/fallback-replicas: must be a whole number of at least 1, got \"-1\"");
        assertThat(message("zero", "ScalingActive")).contains("autoscaling.hpa-controller.io/sync-period: must be a duration from 1s to 1h");
        assertThat(message("unknown", "ScalingActive")).contains("autoscaling.hpa-controller.io/sync-perod: unknown annotation");
        assertThat(events("InvalidAnnotation")).extracting(Event::getType).containsOnly("Warning");
        assertThat(events("InvalidAnnotation")).extracting(e -> e.getInvolvedObject().getName())
                .containsExactlyInAnyOrder("typo", "negative", "zero", "unknown");

        // fixed with kubectl annotate --overwrite: it scales at the next sync
        annotate("typo", Map.of(ControlAnnotations.MODE, "Auto"));
        runUntilItsNextSync("typo");
        assertThat(replicas("typo")).isEqualTo(6);
    }

    @Test
    void aMetricFailingLongerThanTheFallbackDurationProposesTheFallbackReplicasUntilItRecovers() throws Exception {
        annotatedHpa("fallback", 3, Map.of(ControlAnnotations.FALLBACK_REPLICAS, "6", ControlAnnotations.FALLBACK_AFTER, "1m"));
        annotatedHpa("plain", 3, Map.of());
        controllerAtProductionRatio();
        await().atMost(Waits.STATE).until(() -> controller.queue().depth() == 2);
        assertThat(run(16)).as("at once; its first slot, at 15 s, is less than a period later").hasSize(2);
        assertThat(replicas("fallback")).isEqualTo(3);

        // the external metrics API is down from here on
        cluster.fail("GET", "^" + EXTERNAL, 503, Integer.MAX_VALUE);
        List<Sync> failing = run(60); // 16 to 75 s: syncs at 30, 45, 60 and 75 s, failing since 30 s
        assertThat(syncsOf(failing, "fallback")).isEqualTo(4);
        assertThat(replicas("fallback")).as("not yet: it has failed for 45 s").isEqualTo(3);
        assertThat(replicas("plain")).isEqualTo(3);
        await().atMost(Waits.STATE).until(() -> "False/FailedGetExternalMetric".equals(condition(readHpa("fallback"), "ScalingActive")));

        List<Sync> due = run(15); // 75 s: a minute of failure
        assertThat(syncsOf(due, "fallback")).isEqualTo(1);
        assertThat(replicas("fallback")).as("the fallback replicas").isEqualTo(6);
        assertThat(replicas("plain")).as("without the control a failed metric blocks, as upstream").isEqualTo(3);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("fallback"), "ScalingActive")).isEqualTo("True/FallbackActive");
            assertThat(events("FallbackActive")).singleElement().satisfies(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getMessage()).contains("fallback_queue").contains("6 replicas");
            });
        });
        assertThat(message("fallback", "ScalingActive")).contains("fallback_queue").contains("failing since");
        assertThat(events("SuccessfulRescale")).singleElement().satisfies(e -> assertThat(e.getMessage()).contains("fallback replicas for"));

        cluster.clearFaults();
        cluster.metrics().setExternalMetric(NS, "fallback_queue", "30");
        List<Sync> recovered = run(15);
        assertThat(syncsOf(recovered, "fallback")).isEqualTo(1);
        assertThat(replicas("fallback")).as("the metric asks for 3 again; the downscale stabilization window holds 6")
                .isEqualTo(6);
        await().atMost(Waits.STATE).untilAsserted(() -> {
            assertThat(condition(readHpa("fallback"), "ScalingActive")).isEqualTo("True/ValidMetricFound");
            assertThat(events("FallbackEnded")).singleElement().satisfies(e -> {
                assertThat(e.getType()).isEqualTo("Normal");
                assertThat(e.getMessage()).contains("gives a value again");
            });
        });
    }

    @Test
    void aMirrorHpaTakesTheSameControlsFromItsFields() throws Exception {
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "web", 3)).create();
        client.apps().deployments().inNamespace(NS).resource(deployment(NS, "api", 3)).create();
        cluster.metrics().setExternalMetric(NS, "web_queue", "60");
        cluster.metrics().setExternalMetric(NS, "api_queue", "60");
        MirrorHpa preview = mirror(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 20, externalAverage("web_queue", "10")));
        preview.getSpec().setAdditionalProperty("mode", "Preview");
        client.resources(MirrorHpa.class).inNamespace(NS).resource(preview).create();
        MirrorHpa bad = mirror(hpa(NS, "api", "apps/v1", "Deployment", "api", 1, 20, externalAverage("api_queue", "10")));
        bad.getSpec().setBehavior(new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior());
        bad.getSpec().getBehavior().setAdditionalProperty("syncPeriodSeconds", 0);
        client.resources(MirrorHpa.class).inNamespace(NS).resource(bad).create();

        startController(LiveFixtures.fastOptions().withApis(java.util.Set.of(HpaApi.MIRROR), false));

        await().atMost(Waits.STATE).untilAsserted(() -> {
            HorizontalPodAutoscaler web = client.resources(MirrorHpa.class).inNamespace(NS).withName("web").get().toCore();
            assertThat(condition(web, "AbleToScale")).isEqualTo("False/Preview");
            assertThat(web.getStatus().getDesiredReplicas()).isEqualTo(6);
            HorizontalPodAutoscaler api = client.resources(MirrorHpa.class).inNamespace(NS).withName("api").get().toCore();
            assertThat(condition(api, "ScalingActive")).isEqualTo("False/InvalidSpec");
            assertThat(api.getStatus().getConditions()).anySatisfy(c -> assertThat(c.getMessage())
                    .contains("spec.behavior.syncPeriodSeconds: must be a whole number of seconds from 1 to 3600, got 0"));
            assertThat(events("InvalidSpec")).extracting(Event::getType).containsOnly("Warning").isNotEmpty();
        });
        long before = syncs.size();
        await().atMost(Waits.STATE).until(() -> syncs.size() >= before + 4);
        assertThat(replicas("web")).isEqualTo(3);
        assertThat(replicas("api")).isEqualTo(3);
        assertThat(scaleWrites("web")).isZero();
        assertThat(metricReads("api")).isZero();
    }

    private static MirrorHpa mirror(HorizontalPodAutoscaler v2) {
        MirrorHpa m = new MirrorHpa();
        m.setMetadata(v2.getMetadata());
        m.setSpec(v2.getSpec());
        return m;
    }
}
