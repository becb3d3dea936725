package io.hpacontroller.testing.node;

import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 26, scenario f: shadow mode (the chart's {@code shadow=true}) beside upstream's HPA controller on a real
 * workload for 5 minutes: a demand step up and back down, which upstream scales. Every comparison agrees, or
 * its disagreement is one log line that names both decisions and their conditions; the shadow writes nothing
 * but its Lease.
 */
@RealNodeTest
@ResourceLock(value = RealNodeExtension.UPSTREAM_HPA_CONTROLLER, mode = ResourceAccessMode.READ)
class ShadowNodeIT {

    private static final Duration LONG = Duration.ofMinutes(4);
    private static final Duration RUN = Duration.ofMinutes(5);
    private static final Pattern DISAGREES = Pattern.compile("shadow disagrees on (\\S+): from (\\d+) replicas the built-in controller wants (\\d+) \\((.+)\\), this controller (\\d+) \\((.+)\\)");

    @Test
    void theShadowComparesEveryDecisionOfUpstreamAndExplainsEachDisagreement(RealNode node) throws Exception {
        node.upstreamHpaController().on();
        TestNamespace ns = node.newNamespace("shadow");
        Instant start = Instant.now();
        try (ControllerRelease shadow = ControllerRelease.install(node, "hpa-shadow", "hpa-shadow",
                Map.of("shadow", true, "replicaCount", 1, "watchNamespaces[0]", ns.name(), "metrics.secure", false));
             Timeline t = new Timeline("shadow");
             CpuWorkload web = CpuWorkload.create(node, ns.name(), "web", 2, CpuWorkload.Shape.of("20m", Duration.ofSeconds(5)))) {
            t.watchReplicas(node, ns.name(), "web");
            web.demand(20);
            await("2 web pods Ready").atMost(LONG).until(() -> web.readyPods().size() == 2);
            NodeHpas.create(node.adminClient(), HpaApi.BUILTIN, ns.name(), NodeHpas.cpuHpa("web", 2, 6, 30));
            t.watchHpa(node, HpaApi.BUILTIN, ns.name(), "web");
            double created = t.now();
            t.mark("autoscaling/v2 HPA web created (upstream scales it; the shadow release hpa-shadow watches " + ns.name() + "); demand 20m");
            await("upstream to read the metric").atMost(LONG).until(() -> "True ValidMetricFound".equals(
                    NodeHpas.condition(NodeHpas.read(node.adminClient(), HpaApi.BUILTIN, ns.name(), "web"), "ScalingActive")));
            web.demand(60);
            t.mark("demand 60m");
            await("upstream to scale up").atMost(LONG).until(() -> web.replicas() >= 4);
            web.demand(10);
            t.mark("demand 10m (2 replicas, the minimum)");
            await("upstream to scale back down").atMost(LONG).until(() -> web.replicas() == 2);
            // the rest of the five minutes at a steady demand
            await("five minutes since the HPA was created").pollInterval(Duration.ofSeconds(5)).atMost(RUN.plus(LONG))
                    .until(() -> t.now() - created >= RUN.toSeconds());

            List<Timeline.Step> steps = t.steps(ns.name(), "web");
            assertThat(steps).as("upstream scaled the real workload up and down").hasSizeGreaterThanOrEqualTo(2);
            long comparisons = node.plane().audit().count(AuditEvent.Filter.all().user(UpstreamHpaController.USER).since(start)
                    .namespace(ns.name()).resource("horizontalpodautoscalers").subresource("status").writes());
            String log = shadow.log(shadow.pods().get(0).getMetadata().getName());
            shadow.saveLogs();
            List<String> lines = log.lines().filter(l -> l.contains("shadow disagrees on " + ns.name() + "/web")).toList();
            String metrics = node.adminClient().raw("/api/v1/namespaces/hpa-shadow/pods/" + shadow.pods().get(0).getMetadata().getName()
                    + ":8080/proxy/metrics");
            long counted = counter(metrics, "hpa_controller_shadow_disagreements_total", ns.name());
            t.mark(comparisons + " status writes of upstream compared; " + counted + " disagreements: " + lines);
            assertThat(comparisons).as("upstream's status writes, each compared by the shadow").isGreaterThanOrEqualTo(5);
            assertThat(sample(metrics, "hpa_controller_shadow_desired_replicas", ns.name())).as("the shadow's gauge for the HPA").isNotNull();
            assertThat(lines).as("one log line per disagreement counted").hasSize((int) counted);
            for (String line : lines) {
                Matcher m = DISAGREES.matcher(line);
                assertThat(m.find()).as("a disagreement names both decisions and their conditions: " + line).isTrue();
                assertThat(m.group(4)).contains("ScalingActive=");
                assertThat(m.group(6)).contains("ScalingActive=");
            }
            assertThat(node.plane().audit().events(AuditEvent.Filter.all().user(shadow.user()).since(start).writes()))
                    .as("the shadow writes nothing but its Lease and its events")
                    .allMatch(e -> List.of("leases", "events").contains(e.resource()));
        }
    }


    /** A counter's value for the HPA {@code NAMESPACE/web}; 0 when it has no sample (nothing counted). */
    private static long counter(String metrics, String name, String namespace) {
        String value = sample(metrics, name, namespace);
        return value == null ? 0 : (long) Double.parseDouble(value);
    }

    /** The value of the metric's sample for the HPA {@code NAMESPACE/web} (its labels in any order), or null. */
    private static String sample(String metrics, String name, String namespace) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{([^}]*)} (\\S+)$").matcher(metrics);
        while (m.find()) {
            if (m.group(1).contains("name=\"web\"") && m.group(1).contains("namespace=\"" + namespace + "\"")) {
                return m.group(2);
            }
        }
        return null;
    }
}
