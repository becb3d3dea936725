package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.deploy.ChartReleases;
import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.hpa.MirrorHpaStatus;
import io.hpacontroller.testing.Waits;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.RealKube;
import io.hpacontroller.testing.kube.TestNamespace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plugin as {@code mvn package} made it: {@code kubectl hpa describe}, run by kubectl itself from
 * {@code target/kubectl-hpa} on PATH, reads a plain autoscaling/v2 HPA (four metric types, a behavior, labels,
 * annotations, a status with conditions written through /status, an event) as {@code kubectl describe hpa} does, field
 * by field; a mirror HPA with the same spec, status and event reads the same. Fields compared: every top-level
 * {@code Key: value} line (Name, Namespace, Labels, Annotations, CreationTimestamp, Reference, Min/Max replicas,
 * Deployment pods), each line of Metrics and Behavior split into its cells, the Conditions table, and the Events table
 * without its Age column (the two commands run seconds apart). The archive holds what the krew manifest names.
 */
@RealKube
class KubectlPluginIT {

    private static final Path TARGET = Path.of("target").toAbsolutePath();

    private static HorizontalPodAutoscaler spec(String namespace) {
        // the CPU metric last: a v1.26 server stores HPAs as autoscaling/v1 and gives it back after the others
        return new HorizontalPodAutoscalerBuilder().withNewMetadata().withName("web").withNamespace(namespace)
                .addToLabels("app", "web").addToLabels("team", "shop").addToAnnotations("note", "scaled by hpa-controller").endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName("web").endScaleTargetRef()
                .withMinReplicas(2).withMaxReplicas(10)
                .addNewMetric().withType("Pods").withNewPods().withNewMetric().withName("packets-per-second").endMetric().withNewTarget()
                .withType("AverageValue").withAverageValue(new Quantity("1k")).endTarget().endPods().endMetric()
                .addNewMetric().withType("Object").withNewObject().withNewMetric().withName("requests-per-second").endMetric()
                .withNewDescribedObject().withApiVersion("networking.k8s.io/v1").withKind("Ingress").withName("main").endDescribedObject()
                .withNewTarget().withType("Value").withValue(new Quantity("10k")).endTarget().endObject().endMetric()
                .addNewMetric().withType("External").withNewExternal().withNewMetric().withName("queue-depth").endMetric().withNewTarget()
                .withType("AverageValue").withAverageValue(new Quantity("30")).endTarget().endExternal().endMetric()
                .addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget().withType("Utilization")
                .withAverageUtilization(50).endTarget().endResource().endMetric()
                .withNewBehavior().withNewScaleUp().withStabilizationWindowSeconds(0).withSelectPolicy("Max").addNewPolicy().withType("Pods")
                .withValue(4).withPeriodSeconds(15).endPolicy().addNewPolicy().withType("Percent").withValue(100).withPeriodSeconds(15)
                .endPolicy().endScaleUp().withNewScaleDown().withStabilizationWindowSeconds(300).endScaleDown().endBehavior()
                .endSpec().build();
    }

    private static HorizontalPodAutoscalerStatus status() {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        return new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(3).withDesiredReplicas(4).withLastScaleTime(now)
                .addNewCurrentMetric().withType("Pods").withNewPods().withNewMetric().withName("packets-per-second").endMetric()
                .withNewCurrent().withAverageValue(new Quantity("1200")).endCurrent().endPods().endCurrentMetric()
                .addNewCurrentMetric().withType("Object").withNewObject().withNewMetric().withName("requests-per-second").endMetric()
                .withNewDescribedObject().withApiVersion("networking.k8s.io/v1").withKind("Ingress").withName("main").endDescribedObject()
                .withNewCurrent().withValue(new Quantity("12k")).endCurrent().endObject().endCurrentMetric()
                .addNewCurrentMetric().withType("External").withNewExternal().withNewMetric().withName("queue-depth").endMetric()
                .withNewCurrent().withAverageValue(new Quantity("25")).endCurrent().endExternal().endCurrentMetric()
                .addNewCurrentMetric().withType("Resource").withNewResource().withName("cpu").withNewCurrent().withAverageUtilization(45)
                .withAverageValue(new Quantity("90m")).endCurrent().endResource().endCurrentMetric()
                .addNewCondition().withType("AbleToScale").withStatus("True").withReason("SucceededRescale").withLastTransitionTime(now)
                .withMessage("the HPA controller was able to update the target scale to 4").endCondition()
                .addNewCondition().withType("ScalingActive").withStatus("True").withReason("ValidMetricFound").withLastTransitionTime(now)
                .withMessage("the HPA was able to successfully calculate a replica count from pods metric packets-per-second").endCondition()
                .addNewCondition().withType("ScalingLimited").withStatus("False").withReason("DesiredWithinRange").withLastTransitionTime(now)
                .withMessage("the desired count is within the acceptable range").endCondition()
                .build();
    }

    private static void event(TestNamespace ns, HasMetadata hpa, String apiVersion) {
        Instant last = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        ns.create(new EventBuilder().withNewMetadata().withGenerateName("web.").withNamespace(ns.name()).endMetadata()
                .withNewInvolvedObject().withApiVersion(apiVersion).withKind("HorizontalPodAutoscaler").withName("web")
                .withNamespace(ns.name()).withUid(hpa.getMetadata().getUid()).endInvolvedObject()
                .withType("Normal").withReason("SuccessfulRescale").withMessage("New size: 4; reason: pods metric packets-per-second above target")
                .withNewSource().withComponent("hpa-controller").endSource().withCount(3)
                .withFirstTimestamp(last.minusSeconds(600).toString()).withLastTimestamp(last.toString()).build());
    }

    @Test
    void describeReadsAsKubectlDescribeHpaForBothApis(KubeControlPlane kube, TestNamespace ns) throws Exception {
        ChartReleases.installCrds(kube);
        var hpas = ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name());
        HorizontalPodAutoscaler created = hpas.resource(spec(ns.name())).create();
        created.setStatus(status());
        hpas.resource(created).updateStatus();
        event(ns, created, "autoscaling/v2");

        var mirrors = ns.admin().resources(MirrorHpa.class).inNamespace(ns.name());
        MirrorHpa mirror = new MirrorHpa();
        mirror.setMetadata(spec(ns.name()).getMetadata());
        mirror.setSpec(created.getSpec()); // as autoscaling/v2 stored it, with its defaults (scaleDown's policies)
        mirror = mirrors.resource(mirror).create();
        mirror.setStatus(new KubernetesSerialization().convertValue(status(), MirrorHpaStatus.class));
        mirrors.resource(mirror).updateStatus();
        event(ns, mirror, "autoscaling.hpa-controller.io/v1");

        String kubectlText = kube.kubectl("describe", "hpa", "web", "-n", ns.name());
        String oursText = plugin("describe", "hpa/" + ns.name() + "/web", "--kubeconfig=" + kube.adminKubeconfig());
        Map<String, List<List<String>>> kubectl = fields(kubectlText);
        assertThat(kubectl.keySet()).containsExactly("Name", "Namespace", "Labels", "Annotations", "CreationTimestamp", "Reference", "Metrics",
                "Min replicas", "Max replicas", "Behavior", "Deployment pods", "Conditions", "Events");
        assertThat(kubectl.get("Metrics")).as(kubectlText).hasSize(1 + 4);
        assertThat(kubectl.get("Conditions")).as(kubectlText).hasSize(2 + 3);
        assertThat(kubectl.get("Events")).as(kubectlText).hasSize(2 + 1);
        assertThat(fields(oursText)).as(oursText + "---- kubectl describe hpa:\n" + kubectlText).isEqualTo(kubectl);

        // the mirror HPA of the same spec, status and event, named as kubectl users do (-n NAMESPACE, kubectl's short name)
        String mirrorText = plugin("describe", "-n", ns.name(), "xhpa/web", "--kubeconfig=" + kube.adminKubeconfig());
        Map<String, List<List<String>>> mirrored = fields(mirrorText);
        assertThat(mirrored.remove("CreationTimestamp")).isNotEmpty();
        kubectl.remove("CreationTimestamp");
        assertThat(mirrored).as(mirrorText + "---- kubectl describe hpa:\n" + kubectlText).isEqualTo(kubectl);
    }

    /** Runs kubectl with target/ first on PATH, as a user who installed the plugin: {@code kubectl hpa ARGS}. */
    private static String plugin(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kubectl", "hpa"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", TARGET + ":" + System.getenv("PATH"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    /**
     * The reading of a description: each top-level {@code Key: value} line (with the lines that continue it, as
     * Labels) as one entry of cells; each section (Metrics, Behavior, Conditions, Events) as its lines split into cells
     * at runs of two or more spaces, the Events rows without their Age.
     */
    static Map<String, List<List<String>>> fields(String text) {
        Map<String, List<List<String>>> fields = new LinkedHashMap<>();
        String key = null;
        for (String line : text.lines().toList()) {
            if (line.isBlank()) {
                continue;
            }
            if (!line.startsWith(" ")) {
                int colon = line.indexOf(':');
                key = line.substring(0, colon);
                String value = line.substring(colon + 1).strip();
                fields.put(key, new ArrayList<>());
                if (!value.isEmpty()) {
                    fields.get(key).add(List.of(value));
                }
                continue;
            }
            List<String> cells = new ArrayList<>(List.of(line.strip().split(" {2,}")));
            if ("Events".equals(key) && cells.size() == 5) {
                cells.remove(2);
            }
            fields.get(key).add(cells);
        }
        return fields;
    }

    @Test
    void theLauncherListsItsVerbsAndTheArchiveHoldsWhatTheKrewManifestNames() throws Exception {
        Process help = new ProcessBuilder(TARGET.resolve("kubectl-hpa").toString(), "--help").redirectErrorStream(true).start();
        String out = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(help.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(help.exitValue()).as(out).isZero();
        assertThat(out).startsWith("Usage: kubectl hpa [-hV] VERB").contains("\n  describe  ", "\n  why       ", "\n  simulate  ");

        Path archive = TARGET.resolve("kubectl-hpa.tar.gz");
        Process list = new ProcessBuilder("tar", "-tzf", archive.toString()).start();
        List<String> entries = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(list.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        String manifest = Files.readString(TARGET.resolve("krew").resolve("hpa.yaml"));
        @SuppressWarnings("unchecked")
        Map<String, Object> platform = ((List<Map<String, Object>>) ((Map<String, Object>) new KubernetesSerialization()
                .unmarshal(manifest, Map.class).get("spec")).get("platforms")).get(0);
        @SuppressWarnings("unchecked")
        List<Object> files = ((List<Map<String, Object>>) platform.get("files")).stream().map(f -> f.get("from")).toList();
        assertThat(entries).containsExactlyElementsOf(files.stream().map(String::valueOf).toList()).contains("kubectl-hpa", "hpa-controller.jar");
        assertThat(platform.get("sha256")).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(archive))));
    }
}
