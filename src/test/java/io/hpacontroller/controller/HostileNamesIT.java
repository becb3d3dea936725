package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.InProcessController;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 35, item 3, on a real API server: mirror HPAs whose names would lead a request out of their namespace
 * ({@code ../../VICTIM/deployments/web}), written around the CRD's validation (straight into etcd, as objects stored before
 * the CRD refused them), are refused by the controller with an event (the condition too, which the API server then refuses
 * to store: it validates the whole object on a status write); names the validation takes but
 * that mean something in a URL ({@code web?x=}, a metric name with a newline) go as one encoded segment. The audit log
 * holds no request of the controller that names the victim's namespace or climbs a segment.
 */
@RealKube
class HostileNamesIT {

    private static final String MIRROR_HPA = """
            {"apiVersion":"%s","kind":"HorizontalPodAutoscaler",
             "metadata":{"name":"%s","namespace":"%s","uid":"%s","generation":1,"creationTimestamp":"%s"},
             "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":%s},"minReplicas":1,"maxReplicas":4,
                     "metrics":[%s]}}""";

    private static String json(String s) {
        return io.hpacontroller.core.GoText.quote(s);
    }

    private static String cpu() {
        return "{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"target\":{\"type\":\"Utilization\",\"averageUtilization\":50}}}";
    }

    private static String pods(String metric) {
        return "{\"type\":\"Pods\",\"pods\":{\"metric\":{\"name\":" + json(metric) + "},\"target\":{\"type\":\"AverageValue\",\"averageValue\":\"10\"}}}";
    }

    private static String external(String metric) {
        return "{\"type\":\"External\",\"external\":{\"metric\":{\"name\":" + json(metric) + "},\"target\":{\"type\":\"Value\",\"value\":\"10\"}}}";
    }

    private static String object(String describedName) {
        return "{\"type\":\"Object\",\"object\":{\"describedObject\":{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"name\":" + json(describedName)
                + "},\"metric\":{\"name\":\"rps\"},\"target\":{\"type\":\"Value\",\"value\":\"10\"}}}";
    }

    /** A mirror HPA stored past the API server, as an object stored before the CRD's rules refused it. */
    private static void storeAroundValidation(KubeControlPlane kube, TestNamespace ns, String name, String target, String metric) {
        kube.etcdPut("/registry/" + HpaApi.MIRROR.group() + "/" + HpaApi.MIRROR.plural() + "/" + ns.name() + "/" + name,
                MIRROR_HPA.formatted(HpaApi.MIRROR.apiVersion(), name, ns.name(), UUID.randomUUID(), Instant.now().toString().replaceAll("\\.\\d+Z$", "Z"),
                        json(target), metric));
    }

    private static String condition(TestNamespace ns, String hpa, String type) {
        HorizontalPodAutoscaler h = LiveFixtures.read(ns, HpaApi.MIRROR, hpa);
        return h == null || h.getStatus() == null || h.getStatus().getConditions() == null ? null : h.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals(type)).map(c -> c.getStatus() + "/" + c.getReason() + ": " + c.getMessage()).findFirst().orElse(null);
    }

    private static List<Event> events(TestNamespace ns, String hpa, String reason) {
        return ns.admin().v1().events().inNamespace(ns.name()).list().getItems().stream()
                .filter(e -> hpa.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason())).toList();
    }

    @Test
    void namesWrittenAroundValidationAreRefusedAndNoRequestLeavesTheNamespace(KubeControlPlane kube) {
        TestNamespace ns = kube.newNamespace("hostile-names");
        TestNamespace victim = kube.newNamespace("victim");
        ChartRelease release = ChartReleases.mirror(kube);
        victim.create(Workloads.deployment("web", 1));
        // a Deployment per metric HPA: HPAs sharing a target stop at AmbiguousSelector before their metrics
        for (String target : List.of("web", "web-pods", "web-external", "web-object", "web-newline")) {
            ns.create(Workloads.deployment(target, 1));
        }
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        String v = victim.name();
        // the HPA, the reason of its Warning event, and the text the event's message names
        Map<String, String[]> refused = new LinkedHashMap<>();
        refused.put("traversal", new String[]{"FailedGetScale", "spec.scaleTargetRef.name: Invalid value: \"../../" + v
                + "/deployments/web\": may not contain '/'"});
        refused.put("encoded-slash", new String[]{"FailedGetScale", "may not contain '%'"});
        refused.put("dot-dot", new String[]{"FailedGetScale", "may not be '..'"});
        refused.put("pods-metric", new String[]{"FailedGetPodsMetric", "spec.metrics[0].pods.metric.name: Invalid value"});
        refused.put("external-metric", new String[]{"FailedGetExternalMetric", "spec.metrics[0].external.metric.name: Invalid value"});
        refused.put("described-object", new String[]{"FailedGetObjectMetric", "spec.metrics[0].object.describedObject.name"});
        storeAroundValidation(kube, ns, "traversal", "../../" + v + "/deployments/web", cpu());
        storeAroundValidation(kube, ns, "encoded-slash", ".." + "%2F" + ".." + "%2F" + v + "%2Fdeployments%2Fweb", cpu());
        storeAroundValidation(kube, ns, "dot-dot", "..", cpu());
        storeAroundValidation(kube, ns, "pods-metric", "web-pods", pods("../../../" + v + "/pods/*/qps"));
        storeAroundValidation(kube, ns, "external-metric", "web-external", external("../" + v + "/queue"));
        storeAroundValidation(kube, ns, "described-object", "web-object", object("../../" + v + "/services/web"));
        // the CRD refuses a newline in a metric name; autoscaling/v2 takes it, and so does the controller: it is encoded
        storeAroundValidation(kube, ns, "newline-metric", "web-newline", pods("qps\nx"));
        // valid for autoscaling/v2 and the CRD alike: a name that only a raw path would misread
        LiveFixtures.apply(ns, HpaApi.MIRROR, """
                apiVersion: %s
                kind: HorizontalPodAutoscaler
                metadata: {name: query, namespace: %s}
                spec:
                  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: "web?x="}
                  maxReplicas: 4
                """.formatted(HpaApi.MIRROR.apiVersion(), ns.name()));
        Instant start = Instant.now();

        try (InProcessController controller = InProcessController.start(release.client(), LiveFixtures.reconciling(ns, HpaApi.MIRROR), null)) {
            await().atMost(Waits.STATE).untilAsserted(() -> {
                // the conditions of an object stored past the CRD's rules cannot be written: kube-apiserver validates the
                // whole object on a status write (and the controller reports that as FailedUpdateStatus); the events say it
                for (Map.Entry<String, String[]> r : refused.entrySet()) {
                    assertThat(events(ns, r.getKey(), r.getValue()[0])).as(r.getKey() + "'s event")
                            .anySatisfy(e -> assertThat(e.getMessage()).contains(r.getValue()[1]));
                }
                assertThat(condition(ns, "query", "AbleToScale")).as("web?x= names no Deployment").startsWith("False/FailedGetScale")
                        .contains("web?x=");
                assertThat(events(ns, "newline-metric", "FailedGetPodsMetric")).isNotEmpty();
            });
        }
        List<AuditEvent> requests = kube.audit().events(AuditEvent.Filter.all().user(release.user()).since(start));
        assertThat(requests).as("the controller's requests").isNotEmpty();
        assertThat(requests).as("no request names the victim's namespace or climbs a segment").noneSatisfy(e -> assertThat(
                e.requestUri().contains(v) || e.requestUri().matches(".*/\\.\\.?(/.*|\\?.*|)$") || v.equals(e.namespace())).isTrue());
        assertThat(requests).as("web?x= goes as one encoded segment, in the HPA's namespace").anySatisfy(e -> assertThat(e.requestUri())
                .isEqualTo("/apis/apps/v1/namespaces/" + ns.name() + "/deployments/web%3Fx%3D/scale"));
        assertThat(requests).as("the newline goes as one encoded segment, in the HPA's namespace")
                .anySatisfy(e -> assertThat(e.requestUri()).startsWith("/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns.name() + "/pods/")
                        .contains("qps%0Ax"));
        assertThat(victim.admin().apps().deployments().inNamespace(v).withName("web").get().getSpec().getReplicas()).isEqualTo(1);
    }
}
