package io.hpacontroller.history;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehaviorBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.api.ServedResource;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.Crds;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKubeExtension;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 29.3 on a real API server: the kept histories deleted, then their CRD deleted and installed again, under a
 * leader that scales an HPA with {@code --persist-history} (syncs every second). Scaling resumes: the deleted object
 * is created again by the next write (the audit log: a 404 on the update, then a create, then the scale); while the
 * CRD is missing, no scale is written and that is reported once (one ERROR line, the HPA's AbleToScale=False
 * FailedUpdateHistory); once it is back, the next sync creates the object and scales. Deleting a CRD touches every
 * test of the shared control plane, so this class has it to itself while it runs.
 */
@ExtendWith(RealKubeExtension.class)
@ResourceLock(value = RealKubeExtension.SHARED_PLANE, mode = ResourceAccessMode.READ_WRITE)
class HistoryHealIT {

    private static final Duration PERIOD = Duration.ofSeconds(1);
    /** Generous for a loaded 2-core machine; the figures measured are printed. */
    private static final Duration CEILING = Duration.ofSeconds(60);
    private static final ResourceDefinitionContext HISTORIES = new ResourceDefinitionContext.Builder().withGroup(StoredHistory.GROUP)
            .withVersion(StoredHistory.VERSION).withKind(StoredHistory.KIND).withPlural(StoredHistory.PLURAL).withNamespaced(true).build();
    private static final String CRD = StoredHistory.PLURAL + "." + StoredHistory.GROUP;

    @Test
    void scalingResumesWhenTheHistoriesAreDeletedAndWhenTheirCrdComesBack(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease chart = ChartReleases.shipped(kube);
        KubernetesClient admin = ns.admin();
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi"); // twice the 50 % target whatever the count: up to the maximum, 4
        HorizontalPodAutoscaler web = hpa(ns.name(), "web", "apps/v1", "Deployment", "web", 1, 4, cpuUtilization(50));
        // a behavior, so that the scale events are kept (upstream records none without one): each scale writes the history
        web.getSpec().setBehavior(new HorizontalPodAutoscalerBehaviorBuilder().withNewScaleDown().withStabilizationWindowSeconds(0).endScaleDown().build());
        ns.create(web);
        String key = ns.name() + "/web";
        AuditEvent.Filter histories = ns.audit().user(chart.user()).resource(StoredHistory.PLURAL);
        AuditEvent.Filter scaleWrites = ns.audit().user(chart.user()).resource("deployments").subresource("scale").verb("update", "patch").code(200);

        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(ServedResource.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        ControllerOptions options = LiveFixtures.fastOptions().withSyncPeriod(PERIOD).withNamespaces(List.of(ns.name())).withPersistHistory(true);
        try (InProcessController controller = InProcessController.start(chart.client(), options, null)) {
            await().atMost(CEILING).untilAsserted(() -> {
                assertThat(replicas(admin, ns)).isEqualTo(4);
                assertThat(admin.genericKubernetesResources(HISTORIES).inNamespace(ns.name()).withName("web").get()).isNotNull();
            });

            // 1. kubectl delete horizontalpodautoscalerhistories --all, then the load drops: 4 -> 1
            admin.genericKubernetesResources(HISTORIES).inNamespace(ns.name()).delete();
            await().atMost(CEILING).until(() -> admin.genericKubernetesResources(HISTORIES).inNamespace(ns.name()).list().getItems().isEmpty());
            Instant deleted = Instant.now();
            ns.metrics().podUsage("app=web", "10m", "64Mi");
            await().atMost(CEILING).until(() -> replicas(admin, ns) == 1);
            Instant scaledDown = Instant.now();
            List<AuditEvent> after = kube.audit().events(histories.since(deleted));
            AuditEvent notFound = after.stream().filter(e -> e.verb().equals("update") && e.code() == 404).findFirst().orElseThrow();
            AuditEvent created = after.stream().filter(e -> e.verb().equals("create") && e.code() == 201).findFirst().orElseThrow();
            AuditEvent scaled = kube.audit().events(scaleWrites.since(deleted)).get(0);
            assertThat(created.received()).as("created in the same sync as the update that met 404").isAfterOrEqualTo(notFound.completed());
            assertThat(scaled.received()).as("the scale after its history").isAfterOrEqualTo(created.completed());
            assertThat(after).as("one update met 404, not one per sync").filteredOn(e -> e.code() == 404).hasSize(1);

            // 2. the CRD deleted: the load rises (1 -> 2 wanted), no scale is written, and that is said once
            admin.apiextensions().v1().customResourceDefinitions().withName(CRD).delete();
            await().atMost(CEILING).until(() -> admin.apiextensions().v1().customResourceDefinitions().withName(CRD).get() == null);
            Instant crdGone = Instant.now();
            ns.metrics().podUsage("app=web", "100m", "64Mi");
            await().atMost(CEILING).untilAsserted(() -> assertThat(ableToScale(admin, ns)).satisfies(c -> {
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getReason()).isEqualTo(Reconciler.FAILED_UPDATE_HISTORY);
                assertThat(c.getMessage()).contains("the API server does not serve horizontalpodautoscalerhistories.autoscaling.hpa-controller.io/v1");
            }));
            long syncs = controller.syncsOf(key);
            await().atMost(CEILING).until(() -> controller.syncsOf(key) >= syncs + 5);
            assertThat(replicas(admin, ns)).as("no scale while its history cannot be kept").isEqualTo(1);
            assertThat(kube.audit().count(scaleWrites.since(crdGone))).isZero();
            assertThat(kube.audit().count(histories.since(crdGone).verb("create", "update"))).as("the writes stop being sent").isLessThanOrEqualTo(2);
            assertThat(log.list).filteredOn(e -> e.getLevel() == Level.ERROR).as("reported once").singleElement().asString()
                    .contains("is its CRD installed?");

            // 3. the CRD installed again: the next sync keeps the history and scales
            Instant reinstalled = installHistoryCrd(admin);
            await().atMost(CEILING).until(() -> replicas(admin, ns) > 1);
            Instant scaledUp = Instant.now();
            AuditEvent recreated = kube.audit().events(histories.since(reinstalled).verb("create").code(201)).get(0);
            AuditEvent rescaled = kube.audit().events(scaleWrites.since(reinstalled)).get(0);
            assertThat(rescaled.received()).isAfterOrEqualTo(recreated.completed());
            assertThat(ableToScale(admin, ns).getStatus()).isEqualTo("True");
            System.out.printf("HistoryHealIT (sync period %d s): histories deleted, then the load dropped -> the update met 404 after %.1f s,"
                            + " created again after %.1f s, scale written after %.1f s; CRD deleted -> %d syncs without a scale, one ERROR line;"
                            + " CRD established again -> history created after %.1f s (answered after %.1f s), scale written after %.1f s"
                            + " (seen after %.1f s)%n", PERIOD.toSeconds(), seconds(deleted, notFound.received()), seconds(deleted, created.received()),
                    seconds(deleted, scaled.received()), controller.syncsOf(key) - syncs, seconds(reinstalled, recreated.received()),
                    seconds(reinstalled, recreated.completed()), seconds(reinstalled, rescaled.received()), seconds(reinstalled, scaledUp));
            assertThat(scaledDown).isAfter(deleted);
        } finally {
            logger.detachAppender(log);
            installHistoryCrd(admin); // whatever happened: the other tests need it
        }
    }

    /** Installs the chart's history CRD as Helm does and waits until it is established; when that was. */
    private static Instant installHistoryCrd(KubernetesClient admin) throws Exception {
        CustomResourceDefinition crd = new KubernetesSerialization().unmarshal(Files.readString(ChartReleases.HISTORY_CRD), CustomResourceDefinition.class);
        await().atMost(CEILING).ignoreExceptions().until(() -> {
            admin.resource(crd).fieldManager("helm").forceConflicts().serverSideApply(); // refused while the old one is terminating
            return true;
        });
        Crds.awaitEstablished(admin, CRD);
        return Instant.now();
    }

    private static int replicas(KubernetesClient admin, TestNamespace ns) {
        return admin.apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas();
    }

    private static HorizontalPodAutoscalerCondition ableToScale(KubernetesClient admin, TestNamespace ns) {
        var status = admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName("web").get().getStatus();
        return status == null || status.getConditions() == null ? new HorizontalPodAutoscalerCondition()
                : status.getConditions().stream().filter(c -> c.getType().equals("AbleToScale")).findFirst().orElse(new HorizontalPodAutoscalerCondition());
    }

    private static double seconds(Instant from, Instant to) {
        return Duration.between(from, to).toMillis() / 1000.0;
    }
}
