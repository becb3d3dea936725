package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One version string: pom.xml's {@code <version>} (the jar's Implementation-Version, which {@code -V} prints:
 * ShadedJarIT), Chart.yaml's version and appVersion, the image tag the chart installs by default; and the release
 * workflow accepts the tag {@code v<version>} (README, "Images").
 */
class OneVersionTest {

    /** pom.xml's own {@code <version>}. */
    static String pomVersion() {
        try {
            Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile()).getDocumentElement();
            for (Node n = project.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e && e.getTagName().equals("version")) {
                    return e.getTextContent().trim();
                }
            }
            throw new AssertionError("pom.xml has no <version>");
        } catch (Exception e) {
            throw new IllegalStateException("cannot read pom.xml", e);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void pomChartAndDefaultImageTagAreOneVersion() {
        Map<String, Object> chart = Manifests.yaml(Manifests.read(HelmChart.CHART_DIR.resolve("Chart.yaml")), Map.class);
        String image = HelmChart.renderDefaults().single(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        String version = pomVersion();

        assertThat(version).as("SemVer, as Helm and image tags take it; no Maven -SNAPSHOT").matches("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?")
                .doesNotContainIgnoringCase("SNAPSHOT");
        assertThat(chart).containsEntry("version", version).containsEntry("appVersion", version);
        assertThat(image).endsWith(":" + version);
        assertThat(Manifests.read(Manifests.DEPLOY_DIR.resolve("deployment.yaml"))).contains("hpa-controller:" + version + "\"");
    }

    @Test
    void theReleaseWorkflowAcceptsTheTagOfThatVersionAndRefusesAnother(@TempDir Path dir) throws Exception {
        String version = pomVersion();

        Check accepted = releaseVersionCheck("v" + version, dir.resolve("accepted"));
        assertThat(accepted.exit()).as(accepted.log()).isZero();
        assertThat(accepted.outputs()).contains("version=" + version);

        Check refused = releaseVersionCheck("v" + version + ".1", dir.resolve("refused"));
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.log()).contains("::error::tag v" + version + ".1 but pom.xml <version> is " + version);
    }

    private record Check(int exit, String log, String outputs) {
    }

    /** Runs release.yml's step that checks the tag, as a runner does (bash -eo pipefail, GITHUB_OUTPUT a file). */
    private static Check releaseVersionCheck(String tag, Path outputs) throws IOException, InterruptedException {
        Path script = Files.writeString(Files.createTempFile("release-version-check", ".sh"), tagCheckStep());
        try {
            Files.writeString(outputs, "");
            ProcessBuilder pb = new ProcessBuilder("bash", "--noprofile", "--norc", "-eo", "pipefail", script.toString()).redirectErrorStream(true);
            pb.environment().putAll(Map.of("GITHUB_REF_NAME", tag, "GITHUB_OUTPUT", outputs.toString(), "GITHUB_REPOSITORY_OWNER", "hpa-controller"));
            Process p = pb.start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
            return new Check(p.exitValue(), log, Files.readString(outputs));
        } finally {
            Files.delete(script);
        }
    }

    /** The step of release.yml that compares the tag with pom.xml and Chart.yaml. */
    @SuppressWarnings("unchecked")
    private static String tagCheckStep() {
        Map<String, Object> release = Manifests.yaml(Manifests.read(Path.of(".github", "workflows", "release.yml")), Map.class);
        return ((Map<String, Object>) release.get("jobs")).values().stream()
                .flatMap(job -> ((List<Map<String, Object>>) ((Map<String, Object>) job).get("steps")).stream())
                .map(step -> String.valueOf(step.get("run")))
                .filter(run -> run.contains("GITHUB_REF_NAME") && run.contains("pom.xml") && run.contains("Chart.yaml"))
                .findFirst().orElseThrow(() -> new AssertionError("release.yml has no step that checks the tag against pom.xml and Chart.yaml"));
    }
}
