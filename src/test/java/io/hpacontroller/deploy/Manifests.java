package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.assertj.core.presentation.Representation;
import org.assertj.core.presentation.StandardRepresentation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Kubernetes objects parsed from YAML (a chart's rendering or the files of deploy/) into fabric8 model classes. */
final class Manifests {

    static final Path DEPLOY_DIR = Path.of("deploy");
    static final String KUSTOMIZATION = "kustomization.yaml";

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");

    /** Prints objects as YAML in assertion messages (fabric8's toString is one very long line). */
    static final Representation AS_YAML = new StandardRepresentation() {
        @Override
        protected String fallbackToStringOf(Object object) {
            return object instanceof HasMetadata ? "\n" + SERIALIZATION.asYaml(object) : super.fallbackToStringOf(object);
        }
    };

    private final List<HasMetadata> objects;

    private Manifests(List<HasMetadata> objects) {
        this.objects = List.copyOf(objects);
    }

    /** Every document of a multi-document YAML text; empty documents (comments only) are skipped. */
    static Manifests parse(String yaml) {
        List<HasMetadata> objects = new ArrayList<>();
        for (String document : DOCUMENT_SEPARATOR.split(yaml)) {
            if (document.lines().allMatch(line -> line.isBlank() || line.stripLeading().startsWith("#"))) {
                continue;
            }
            KubernetesResource parsed = SERIALIZATION.unmarshal(document, KubernetesResource.class);
            objects.add((HasMetadata) parsed);
        }
        return new Manifests(objects);
    }

    /** The objects of every YAML file in deploy/ except the kustomization. */
    static Manifests deployDir() {
        StringBuilder all = new StringBuilder();
        for (Path file : deployFiles()) {
            all.append(read(file)).append("\n---\n");
        }
        return parse(all.toString());
    }

    /** The YAML files of deploy/ that hold objects (the kustomization excluded), sorted by name. */
    static List<Path> deployFiles() {
        try (Stream<Path> files = Files.list(DEPLOY_DIR)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".yaml"))
                    .filter(f -> !f.getFileName().toString().equals(KUSTOMIZATION))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <T> T yaml(String text, Class<T> type) {
        return SERIALIZATION.unmarshal(text, type);
    }

    List<HasMetadata> all() {
        return objects;
    }

    <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The only object of this type; fails when there is none or more than one. */
    <T extends HasMetadata> T single(Class<T> type) {
        List<T> found = all(type);
        if (found.size() != 1) {
            throw new AssertionError("expected exactly one " + type.getSimpleName() + ", found " + found.size()
                    + " among " + kindsAndNames());
        }
        return found.get(0);
    }

    /** The object of this type and name; fails when there is none. */
    <T extends HasMetadata> T named(Class<T> type, String name) {
        return all(type).stream().filter(o -> name.equals(o.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " among " + kindsAndNames()));
    }

    /** The controller's own ClusterRole (the release's name; the others are the metrics port's). */
    io.fabric8.kubernetes.api.model.rbac.ClusterRole controllerRole() {
        return named(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class, HelmChart.RELEASE);
    }

    /** Objects with this kind (for kinds without a model class, e.g. ServiceMonitor). */
    List<HasMetadata> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.getKind())).toList();
    }

    List<String> kindsAndNames() {
        return objects.stream().map(Manifests::key).toList();
    }

    static String key(HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        return object.getKind() + " " + (namespace == null ? "" : namespace + "/") + object.getMetadata().getName();
    }
}
