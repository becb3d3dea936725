package io.hpacontroller.deploy;

import io.hpacontroller.testing.kube.RealKubeExtension;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import io.hpacontroller.testing.kube.Workloads;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Order;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 35, items 1 and 2: the memory of the controller grows with each HPA by a bounded amount, whatever the other
 * HPAs are. The jar that ships runs with the image's JVM options under {@code -XX:MaxRAM=256m} (its MaxRAMPercentage=50
 * makes a heap of 128 MB), as the chart's ServiceAccount. The heap after each collection, from the GC log, is printed.
 * The two tests run one after the other, never beside {@code SlowMetricsSourceIT} ({@link RealKubeExtension#MACHINE}).
 */
@RealKube
@ResourceLock(RealKubeExtension.MACHINE)
@Order(RealKubeExtension.ORDER_MACHINE_LONG)
class HeapPerHpaIT {

    private static final Pattern GC = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
    private static final long LOG_MAX = 5L * 1000 * 1000;

    private static final String HPA = """
            apiVersion: %s
            kind: HorizontalPodAutoscaler
            metadata: {name: %s, namespace: %s%s}
            spec:
              scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %s}
              minReplicas: 1
              maxReplicas: 4
              metrics:
              - type: Resource
                resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
            """;

    /** The image's JVM options (the chart's JDK_JAVA_OPTIONS) in a container of 256 MB: a heap of 128 MB. */
    private static List<String> imageJvm(Path gcLog) {
        var container = HelmChart.renderDefaults().single(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
        String options = container.getEnv().stream().filter(e -> e.getName().equals("JDK_JAVA_OPTIONS")).map(EnvVar::getValue).findFirst().orElseThrow();
        List<String> jvm = new ArrayList<>(List.of(options.split(" ")));
        jvm.add("-XX:MaxRAM=256m");
        jvm.add("-Xlog:gc:file=" + gcLog);
        return jvm;
    }

    /** Creates the HPAs of these manifests, 16 at a time, and returns how long it took. */
    private static Duration createAll(TestNamespace ns, HpaApi api, List<String> manifests) throws Exception {
        Instant start = Instant.now();
        ExecutorService creators = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (String manifest : manifests) {
                created.add(creators.submit(() -> LiveFixtures.hpas(ns, api).inNamespace(ns.name())
                        .resource(Serialization.unmarshal(manifest, GenericKubernetesResource.class)).create()));
            }
            for (Future<?> f : created) {
                f.get();
            }
        } finally {
            creators.shutdownNow();
        }
        return Duration.between(start, Instant.now());
    }

    private static String manifest(HpaApi api, TestNamespace ns, String name, String target, String annotations) {
        return HPA.formatted(api.apiVersion(), name, ns.name(), annotations, target);
    }

    /** The largest heap after a collection (MB), from a GC log. */
    private static String heapFigures(Path gcLog) throws IOException {
        long maxBefore = 0;
        long maxAfter = 0;
        long lastAfter = 0;
        int collections = 0;
        for (String line : Files.readAllLines(gcLog)) {
            Matcher m = GC.matcher(line);
            if (m.find()) {
                collections++;
                maxBefore = Math.max(maxBefore, Long.parseLong(m.group(1)));
                lastAfter = Long.parseLong(m.group(2));
                maxAfter = Math.max(maxAfter, lastAfter);
            }
        }
        return collections + " collections, at most " + maxBefore + " MB before one, " + maxAfter + " MB after, " + lastAfter + " MB after the last";
    }

    @Test
    void twoThousandMirrorHpasOnOneDeploymentLeaveBothReplicasUp(KubeControlPlane kube, TestNamespace ns) throws Exception {
        String release = "hpa-storm";
        ChartReleases.installCrds(kube);
        ChartRelease chart = ChartReleases.install(kube, release, release, "");
        ns.create(Workloads.deployment("web", 2));
        ns.metrics().podUsage("app=web", "100m", "64Mi");
        // the target settled before the controllers start: its scale's status.replicas is in every HPA's status, and a
        // Deployment still creating its pods would change each early HPA's status for a reason that is not the storm
        await().atMost(Waits.STATE).until(() -> Integer.valueOf(2).equals(
                ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").get().getStatus().getReplicas()));
        Map<String, ChildProcess> replicas = new LinkedHashMap<>();
        Map<String, Path> gcLogs = new LinkedHashMap<>();
        try {
            for (String pod : List.of(release + "-a", release + "-b")) {
                gcLogs.put(pod, kube.directory().resolve("logs/" + ns.name() + "-" + pod + "-gc.log"));
                replicas.put(pod, ControllerProcess.start(imageJvm(gcLogs.get(pod)), pod, chart.kubeconfigForPod(pod),
                        kube.directory().resolve("logs/" + ns.name() + "-" + pod + ".log"), "--namespace=" + ns.name(),
                        "--leader-elect=true", "--leader-elect-resource-namespace=" + release));
            }
            List<String> manifests = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                manifests.add(manifest(HpaApi.MIRROR, ns, String.format("web-%04d", i), "web", ""));
            }
            Duration creation = createAll(ns, HpaApi.MIRROR, manifests);
            Instant created = Instant.now();

            // a list of 2,000 HPAs (or any request) that times out on a loaded machine is asked again, within the ceiling
            await().atMost(Duration.ofMinutes(8)).pollInterval(Duration.ofSeconds(5)).ignoreExceptionsInstanceOf(KubernetesClientException.class)
                    .untilAsserted(() -> {
                replicas.values().forEach(ChildProcess::checkAlive);
                var hpas = LiveFixtures.hpas(ns, HpaApi.MIRROR).inNamespace(ns.name()).list().getItems();
                assertThat(hpas).hasSize(2000).allSatisfy(h -> assertThat(Serialization.asJson(h.getAdditionalProperties().get("status")))
                        .contains("\"reason\":\"AmbiguousSelector\""));
            });
            Duration settled = Duration.between(created, Instant.now());
            // the figure: both replicas stay up for 5 minutes of the storm
            Instant until = created.plus(Duration.ofMinutes(5));
            await().atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofSeconds(10)).until(() -> {
                replicas.values().forEach(ChildProcess::checkAlive);
                return Instant.now().isAfter(until);
            });
            replicas.values().forEach(ChildProcess::checkAlive);

            kube.audit().sync();
            AuditEvent.Filter statusWrites = ns.audit().writes().user(chart.user()).apiGroup(HpaApi.MIRROR.group())
                    .resource(HpaApi.MIRROR.plural()).subresource("status");
            List<AuditEvent> writes = kube.audit().events(statusWrites);
            // what is counted is what the API server stored: a write it refused (409 on a stale resourceVersion, 5xx of
            // an overloaded etcd) changed nothing, is followed by the write that does, and is printed below
            Map<String, List<AuditEvent>> writesOf = writes.stream().collect(Collectors.groupingBy(AuditEvent::name));
            Map<String, Long> perHpa = writes.stream().filter(w -> w.code() == 200)
                    .collect(Collectors.groupingBy(AuditEvent::name, Collectors.counting()));
            List<AuditEvent> refused = writes.stream().filter(w -> w.code() != 200).toList();
            long events = kube.audit().count(ns.audit().writes().user(chart.user()).resource("events"));
            System.out.printf("2,000 mirror HPAs on one Deployment, created in %d s, all AmbiguousSelector %d s later: %d status writes"
                            + " (at most %d for one HPA; %d refused: %s), %d event writes; logs %s bytes; heap %s%n", creation.toSeconds(),
                    settled.toSeconds(), perHpa.values().stream().mapToLong(Long::longValue).sum(),
                    perHpa.values().stream().mapToLong(Long::longValue).max().orElse(0), refused.size(),
                    refused.stream().limit(10).map(AuditEvent::toString).toList(), events,
                    replicas.values().stream().map(p -> String.valueOf(p.log().toFile().length())).toList(),
                    gcLogs.values().stream().map(log -> {
                        try {
                            return heapFigures(log);
                        } catch (IOException e) {
                            return e.toString();
                        }
                    }).toList());
            assertThat(perHpa).as("status writes per HPA").hasSize(2000).allSatisfy((name, stored) -> assertThat(stored)
                    .as(() -> name + ": " + writesOf.get(name) + "; the replicas' log lines of it: " + logLines(replicas.values(), name))
                    .isLessThanOrEqualTo(2));
            for (ChildProcess replica : replicas.values()) {
                assertThat(replica.log().toFile().length()).as("the log of " + replica).isLessThan(LOG_MAX);
            }
        } finally {
            replicas.values().forEach(p -> p.stop(Duration.ofSeconds(10)));
        }
    }

    /** The lines (at most 10 from each log) that name this HPA, to tell why its status was written. */
    private static List<String> logLines(Collection<ChildProcess> processes, String hpaName) {
        List<String> lines = new ArrayList<>();
        for (ChildProcess p : processes) {
            try (var all = Files.lines(p.log())) {
                all.filter(line -> line.contains("/" + hpaName + " ") || line.contains("/" + hpaName + ":")).limit(10)
                        .forEach(line -> lines.add(line.length() > 400 ? line.substring(0, 400) + "..." : line));
            } catch (IOException | UncheckedIOException e) {
                lines.add(p + ": " + e);
            }
        }
        return lines;
    }

    @Test
    void aFreshStartSyncsFiveHundredMirrorHpasCarrying250KilobytesOfAnnotations(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartRelease chart = ChartReleases.mirror(kube); // the default install: the mirror API
        ns.create(Workloads.deployment("web", 1));
        ns.metrics().podUsage("app=web", "200m", "64Mi"); // 200 % of the request against 50 %: 4 replicas
        String fat = ", annotations: {kubectl.kubernetes.io/last-applied-configuration: '" + "x".repeat(250 * 1000) + "'}";
        List<String> manifests = new ArrayList<>(List.of(manifest(HpaApi.MIRROR, ns, "web", "web", fat)));
        for (int i = 1; i < 500; i++) { // the others' targets do not exist: each sync is one FailedGetScale status
            manifests.add(manifest(HpaApi.MIRROR, ns, String.format("gone-%03d", i), String.format("gone-%03d", i), fat));
        }
        createAll(ns, HpaApi.MIRROR, manifests);
        Path gcLog = kube.directory().resolve("logs/" + ns.name() + "-gc.log");
        ChildProcess controller = ControllerProcess.start(imageJvm(gcLog), "fat", chart.kubeconfigForPod("fat"),
                kube.directory().resolve("logs/" + ns.name() + "-controller.log"), "--namespace=" + ns.name(), "--leader-elect=false");
        try {
            AuditEvent.Filter statusWrites = ns.audit().writes().user(chart.user()).subresource("status").code(200);
            await().atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofSeconds(5)).ignoreExceptionsInstanceOf(KubernetesClientException.class)
                    .untilAsserted(() -> {
                controller.checkAlive();
                assertThat(Files.readString(controller.log())).contains("informers synced: 500 HPAs");
                assertThat(ns.admin().apps().deployments().inNamespace(ns.name()).withName("web").get().getSpec().getReplicas()).isEqualTo(4);
                kube.audit().sync();
                assertThat(kube.audit().events(statusWrites).stream().map(AuditEvent::name).distinct().count()).as("HPAs whose status was written")
                        .isEqualTo(500);
            });
            controller.checkAlive();
            System.out.printf("500 mirror HPAs with 250 KB of annotations each: heap %s%n", heapFigures(gcLog));
            for (String name : List.of("web", "gone-001")) {
                assertThat(LiveFixtures.hpas(ns, HpaApi.MIRROR).inNamespace(ns.name()).withName(name).get().getMetadata().getAnnotations()
                        .get("kubectl.kubernetes.io/last-applied-configuration"))
                        .as("the status writes (PUT to /status) left the annotations the cache dropped: " + name).hasSize(250 * 1000);
            }
        } finally {
            controller.stop(Duration.ofSeconds(10));
        }
    }
}
