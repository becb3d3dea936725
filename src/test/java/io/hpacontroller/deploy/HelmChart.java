package io.hpacontroller.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

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

    /** `helm template` with --set values (Helm's --set syntax, e.g. "{a,b}" for a list). */
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
