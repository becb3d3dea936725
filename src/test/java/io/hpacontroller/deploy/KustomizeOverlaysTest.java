package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kustomize overlays of deploy/ that the README shows (examples/kustomize/), built by {@code kubectl kustomize}
 * (offline): each installs what the chart installs with the same switch, the container's arguments parsed by the
 * real {@code run} command. The overlays append a named flag instead of replacing an argument at a position.
 */
class KustomizeOverlaysTest {

    static final Path OVERLAYS = Path.of("examples", "kustomize");

    /** Each overlay and the chart values it stands for. */
    private static final Map<String, String> CHART_VALUES = Map.of(
            "full-replacement", "takeOverBuiltinHpas: true",
            "shadow", "shadow: true",
            "sync-period", "hpa: {syncPeriod: 30s}");

    @Test
    void eachOverlayInstallsWhatTheChartInstallsWithTheSameSwitch() {
        assertThat(overlays()).containsExactlyInAnyOrderElementsOf(CHART_VALUES.keySet());
        CHART_VALUES.forEach((overlay, values) -> {
            Manifests built = Manifests.parse(kustomize(OVERLAYS.resolve(overlay)));
            Manifests chart = HelmChart.render(values);

            assertThat(runOptions(controller(built).getArgs())).as("%s: the flags run parses", overlay)
                    .isEqualTo(runOptions(controller(chart).getArgs()));
            assertThat(built.controllerRole().getRules()).as("%s: the controller's ClusterRole", overlay)
                    .containsExactlyInAnyOrderElementsOf(chart.controllerRole().getRules());
        });
    }

    @Test
    void theOverlaysChangeTheDefaultInstall() {
        Map<String, Object> defaults = runOptions(controller(Manifests.deployDir()).getArgs());

        assertThat(runOptions(controller(Manifests.parse(kustomize(OVERLAYS.resolve("shadow")))).getArgs()))
                .containsEntry("--shadow", true).isNotEqualTo(defaults);
        assertThat(runOptions(controller(Manifests.parse(kustomize(OVERLAYS.resolve("full-replacement")))).getArgs()))
                .containsEntry("--hpa-apis", new TreeSet<>(List.of("autoscaling.hpa-controller.io/v1", "autoscaling/v2")));
        assertThat(defaults).containsEntry("--shadow", false).containsEntry("--hpa-apis", new TreeSet<>(List.of("autoscaling.hpa-controller.io/v1")));
    }

    @Test
    void theReadmeShowsEachOverlay() throws IOException {
        String readme = Files.readString(Path.of("docs/install.md"));

        assertThat(overlays()).allSatisfy(o -> assertThat(readme).contains("examples/kustomize/" + o + "/"));
    }

    /** The patches append to the args of containers/0: the controller must be the only container. */
    private static Container controller(Manifests manifests) {
        List<Container> containers = manifests.single(Deployment.class).getSpec().getTemplate().getSpec().getContainers();
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    /** Every option of run as it parses these arguments (a list as a sorted set: the order of its values does not matter). */
    private static Map<String, Object> runOptions(List<String> args) {
        ParseResult run = RunCommandContractTest.parse(args);
        assertThat(run.unmatched()).isEmpty();
        Map<String, Object> options = new TreeMap<>();
        for (OptionSpec option : run.commandSpec().options()) {
            Object value = option.getValue();
            options.put(option.longestName(), value instanceof Collection<?> c ? new TreeSet<>(c) : value);
        }
        return options;
    }

    private static List<String> overlays() {
        try (var dirs = Files.list(OVERLAYS)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("kustomization.yaml"))).map(d -> d.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code kubectl kustomize DIR}: offline, no cluster needed. */
    static String kustomize(Path dir) {
        try {
            Path err = Files.createTempFile("kustomize", ".err");
            try {
                Process p = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectError(err.toFile()).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("kubectl kustomize %s finished", dir).isTrue();
                assertThat(p.exitValue()).as("kubectl kustomize %s: %s", dir, Files.readString(err)).isZero();
                return out;
            } finally {
                Files.delete(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("kubectl is needed (Debian: apt-get install -y kubectl, or from the Kubernetes packages)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
