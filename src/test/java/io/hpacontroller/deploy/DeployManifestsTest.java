package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.hpacontroller.conformance.UnknownFields;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/ is the chart's default rendering (release hpa-controller in namespace hpa-controller),
 * its CRDs (crds/, which Helm installs unrendered) and the Namespace object: one source of truth,
 * checked object by object.
 *
 * <p>Regenerate deploy/ after a chart change:
 * {@code mvn -q -B test -Dtest=DeployManifestsTest -Ddeploy.regenerate=true}
 */
class DeployManifestsTest {

    static final String GENERATED_HEADER = """
            # Generated from charts/hpa-controller with its default values: do not edit.
            # Regenerate: mvn -q -B test -Dtest=DeployManifestsTest -Ddeploy.regenerate=true
            """;

    /** Labels that say "installed by Helm": true for the chart, false for kubectl apply -k deploy/. */
    static final Set<String> HELM_ONLY_LABELS = Set.of("helm.sh/chart", "app.kubernetes.io/managed-by");

    private static final Pattern SOURCE = Pattern.compile("(?m)^# Source: hpa-controller/templates/(\\S+)$");
    private static final Pattern HELM_ONLY_LABEL_LINE = Pattern.compile("(?m)^\\s*("
            + HELM_ONLY_LABELS.stream().map(Pattern::quote).collect(Collectors.joining("|")) + "): .*\\R");

    @BeforeAll
    static void regenerateWhenAsked() throws IOException {
        if (Boolean.getBoolean("deploy.regenerate")) {
            writeDeployDir(HelmChart.renderText(Map.of()));
            for (Path crd : chartCrds()) {
                Files.writeString(Manifests.DEPLOY_DIR.resolve(crd.getFileName()), GENERATED_HEADER + withoutLeadingComments(Manifests.read(crd)));
            }
        }
    }

    @Test
    void deployDirHoldsTheChartsDefaultRendering() {
        List<HasMetadata> rendered = new ArrayList<>(HelmChart.renderDefaults().all().stream()
                .map(DeployManifestsTest::withoutHelmOnlyLabels).toList());
        chartCrds().forEach(crd -> rendered.addAll(Manifests.parse(Manifests.read(crd)).all()));
        Map<String, HasMetadata> chart = byKey(rendered);
        Map<String, HasMetadata> deploy = byKey(Manifests.deployDir().all().stream()
                .filter(o -> !(o instanceof Namespace)).toList());

        assertThat(deploy.keySet()).containsExactlyInAnyOrderElementsOf(chart.keySet());
        chart.forEach((key, expected) -> assertThat(deploy.get(key)).as("deploy/ %s", key)
                .withRepresentation(Manifests.AS_YAML).usingRecursiveComparison().isEqualTo(expected));
    }

    @Test
    void deployDirCreatesTheReleaseNamespaceUnderTheRestrictedPodSecurityStandard() {
        Namespace namespace = Manifests.deployDir().single(Namespace.class);

        assertThat(namespace.getMetadata().getName()).isEqualTo(HelmChart.NAMESPACE);
        assertThat(namespace.getMetadata().getLabels()).containsEntry("pod-security.kubernetes.io/enforce", "restricted");
        assertThat(UnknownFields.in(namespace)).isEmpty();
    }

    @Test
    @SuppressWarnings("unchecked")
    void kustomizationListsEveryFileOfDeployDir() {
        Map<String, Object> kustomization = Manifests.yaml(
                Manifests.read(Manifests.DEPLOY_DIR.resolve(Manifests.KUSTOMIZATION)), Map.class);

        assertThat(kustomization).containsEntry("apiVersion", "kustomize.config.k8s.io/v1beta1")
                .containsEntry("kind", "Kustomization");
        assertThat((List<Object>) kustomization.get("resources")).containsExactlyInAnyOrderElementsOf(
                Manifests.deployFiles().stream().map(f -> f.getFileName().toString()).toList());
    }

    @Test
    void everyGeneratedFileSaysHowToRegenerateIt() {
        List<Path> generated = Manifests.deployFiles().stream()
                .filter(f -> !f.getFileName().toString().equals("namespace.yaml")).toList();

        assertThat(generated).isNotEmpty().allSatisfy(f -> assertThat(Manifests.read(f)).startsWith(GENERATED_HEADER));
    }

    /** The chart's crds/ files, which Helm installs as they are (before the templates). */
    static List<Path> chartCrds() {
        try (var files = Files.list(HelmChart.CHART_DIR.resolve("crds"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String withoutLeadingComments(String yaml) {
        return yaml.lines().dropWhile(l -> l.startsWith("#")).collect(Collectors.joining("\n", "", "\n"));
    }

    /** Writes one file per chart template (Helm's "# Source:" comments) into deploy/, replacing the generated ones. */
    private static void writeDeployDir(String rendered) throws IOException {
        Map<String, List<String>> documentsByTemplate = new TreeMap<>();
        for (String document : rendered.split("(?m)^---\\s*$")) {
            Matcher source = SOURCE.matcher(document);
            if (source.find()) {
                String body = HELM_ONLY_LABEL_LINE.matcher(document.substring(source.end())).replaceAll("");
                documentsByTemplate.computeIfAbsent(source.group(1), t -> new ArrayList<>()).add(body.strip());
            }
        }
        for (Path old : Manifests.deployFiles()) {
            if (Manifests.read(old).startsWith(GENERATED_HEADER)) {
                Files.delete(old);
            }
        }
        for (Map.Entry<String, List<String>> file : documentsByTemplate.entrySet()) {
            Files.writeString(Manifests.DEPLOY_DIR.resolve(file.getKey()),
                    GENERATED_HEADER + String.join("\n---\n", file.getValue()) + "\n");
        }
    }

    private static HasMetadata withoutHelmOnlyLabels(HasMetadata object) {
        HELM_ONLY_LABELS.forEach(object.getMetadata().getLabels()::remove);
        if (object instanceof Deployment deployment) {
            HELM_ONLY_LABELS.forEach(deployment.getSpec().getTemplate().getMetadata().getLabels()::remove);
        }
        return object;
    }

    private static Map<String, HasMetadata> byKey(List<HasMetadata> objects) {
        return objects.stream().collect(Collectors.toMap(Manifests::key, Function.identity(), (a, b) -> {
            throw new AssertionError("two objects named " + Manifests.key(a));
        }, LinkedHashMap::new));
    }
}
