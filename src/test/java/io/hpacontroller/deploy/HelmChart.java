package io.hpacontroller.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** charts/hpa-controller, linted and rendered by a real Helm (helm-java), installed as the README says. */
public final class HelmChart {

    static final Path CHART_DIR = Path.of("charts", "hpa-controller");
    /** `helm install hpa-controller charts/hpa-controller -n hpa-controller`: the README's release. */
    static final String RELEASE = "hpa-controller";
    static final String NAMESPACE = "hpa-controller";
    /** helm-java renders for Kubernetes 1.20 unless told; the controller targets 1.37. */
    static final String KUBE_VERSION = "1.37.0";

    private HelmChart() {
    }

    static LintResult lintStrict() {
        return new Helm(CHART_DIR).lint().strict().call();
    }

    /**
     * {@code helm lint --strict --set ...} (helm-java's lint takes no values): lints a copy of the chart
     * whose values.yaml carries the given values (dotted paths).
     */
    @SuppressWarnings("unchecked")
    static LintResult lintStrict(Map<String, ?> values) {
        try {
            Path copy = Files.createTempDirectory("hpa-controller-chart");
            try {
                Path chart = copy.resolve(CHART_DIR.getFileName());
                try (var files = Files.walk(CHART_DIR)) {
                    for (Path source : files.toList()) {
                        Files.copy(source, chart.resolve(CHART_DIR.relativize(source).toString()));
                    }
                }
                Map<String, Object> all = Manifests.yaml(Files.readString(chart.resolve("values.yaml")), Map.class);
                values.forEach((path, value) -> {
                    String[] keys = path.split("\\.");
                    Map<String, Object> at = all;
                    for (int i = 0; i < keys.length - 1; i++) {
                        at = (Map<String, Object>) at.get(keys[i]);
                    }
                    at.put(keys[keys.length - 1], value);
                });
                Files.writeString(chart.resolve("values.yaml"), new KubernetesSerialization().asYaml(all));
                return new Helm(chart).lint().strict().call();
            } finally {
                try (var files = Files.walk(copy)) {
                    for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** `helm template` with --set values (scalars: helm-java passes "{a,b}" as a string, not a list; lists go through {@link #render(String)}). */
    static String renderText(Map<String, ?> values) {
        TemplateCommand template = new Helm(CHART_DIR).template()
                .withName(RELEASE).withNamespace(NAMESPACE).withKubeVersion(KUBE_VERSION);
        values.forEach(template::set);
        return template.call();
    }

    static Manifests render(Map<String, ?> values) {
        return Manifests.parse(renderText(values));
    }

    /** `helm template -f values.yaml`, for lists and nested values that --set spells badly. */
    static Manifests render(String valuesYaml) {
        return render(RELEASE, NAMESPACE, valuesYaml);
    }

    /** `helm template RELEASE charts/hpa-controller -n NAMESPACE -f values.yaml`. */
    static Manifests render(String release, String namespace, String valuesYaml) {
        try {
            Path file = Files.createTempFile("hpa-controller-values", ".yaml");
            try {
                Files.writeString(file, valuesYaml);
                return Manifests.parse(new Helm(CHART_DIR).template()
                        .withName(release).withNamespace(namespace).withKubeVersion(KUBE_VERSION)
                        .withValuesFile(file).call());
            } finally {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The objects of {@code helm template RELEASE charts/hpa-controller -n NAMESPACE -f values.yaml}. */
    public static List<io.fabric8.kubernetes.api.model.HasMetadata> objects(String release, String namespace, String valuesYaml) {
        return render(release, namespace, valuesYaml).all();
    }

    static Manifests renderDefaults() {
        return render(Map.of());
    }
}
