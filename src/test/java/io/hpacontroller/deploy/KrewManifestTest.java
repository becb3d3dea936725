package io.hpacontroller.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/krew/hpa.yaml is a krew {@code Plugin} (krew reads it strictly: a misspelled key fails the install) whose
 * archive holds the files {@code src/main/plugin/package.sh} puts in it, and the release attaches both. KubectlPluginIT
 * checks the archive {@code mvn package} made against the manifest it wrote.
 */
class KrewManifestTest {

    static final Path MANIFEST = Path.of("deploy", "krew", "hpa.yaml");
    /** The files of the release archive, in package.sh's order. */
    static final List<String> ARCHIVE_FILES = List.of("kubectl-hpa", "hpa-controller.jar", "LICENSE");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @Test
    @SuppressWarnings("unchecked")
    void isAKrewPluginWhoseArchiveHoldsTheLauncherAndTheJar() {
        Map<String, Object> plugin = Manifests.yaml(Manifests.read(MANIFEST), Map.class);
        assertThat(plugin.keySet()).containsExactlyInAnyOrder("apiVersion", "kind", "metadata", "spec");
        assertThat(plugin).containsEntry("apiVersion", "krew.googlecontainertools.github.com/v1alpha2").containsEntry("kind", "Plugin");
        assertThat(map(plugin.get("metadata"))).isEqualTo(Map.of("name", "hpa")); // kubectl hpa: the binary is kubectl-hpa
        Map<String, Object> spec = map(plugin.get("spec"));
        assertThat(Set.of("version", "homepage", "shortDescription", "description", "caveats", "platforms")).containsAll(spec.keySet());
        assertThat(spec).containsEntry("version", "v@VERSION@");
        assertThat((String) spec.get("shortDescription")).hasSizeLessThan(50);
        List<Map<String, Object>> platforms = (List<Map<String, Object>>) spec.get("platforms");
        assertThat(platforms).hasSize(1);
        Map<String, Object> platform = platforms.get(0);
        assertThat(platform.keySet()).containsExactlyInAnyOrder("selector", "uri", "sha256", "files", "bin");
        assertThat(platform).containsEntry("bin", "kubectl-hpa").containsEntry("sha256", "@SHA256@")
                .containsEntry("uri", "https://github.com/hpa-controller/hpa-controller/releases/download/v@VERSION@/kubectl-hpa.tar.gz");
        assertThat((List<Map<String, Object>>) platform.get("files")).allSatisfy(f -> assertThat(f).containsOnlyKeys("from", "to").containsEntry("to", "."))
                .extracting(f -> f.get("from")).containsExactlyElementsOf(ARCHIVE_FILES);
        assertThat(map(platform.get("selector")).toString()).as("a POSIX sh launcher: no Windows").contains("linux").contains("darwin");

        assertThat(Manifests.read(Path.of("src", "main", "plugin", "package.sh")))
                .contains("tar -czf \"$target/kubectl-hpa.tar.gz\" -C \"$target\" kubectl-hpa hpa-controller.jar -C \"$PWD\" LICENSE");
    }

    @Test
    void theReleaseAttachesTheArchiveAndTheManifest() {
        String release = Manifests.read(Path.of(".github", "workflows", "release.yml"));
        assertThat(release).contains("target/kubectl-hpa.tar.gz").contains("target/krew/hpa.yaml");
    }
}
