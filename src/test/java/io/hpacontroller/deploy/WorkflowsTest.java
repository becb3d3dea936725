package io.hpacontroller.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the GitHub Actions workflows promise (README, "Releasing"); .ci/run lints their syntax, expressions
 * and schema with actionlint and action-validator.
 */
class WorkflowsTest {

    private static final Path WORKFLOWS = Path.of(".github", "workflows");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workflow(String file) {
        return Manifests.yaml(Manifests.read(WORKFLOWS.resolve(file)), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> steps(Map<String, Object> workflow, String job) {
        return (List<Map<String, Object>>) ((Map<String, Object>) ((Map<String, Object>) workflow.get("jobs")).get(job)).get("steps");
    }

    private static Map<String, Object> step(Map<String, Object> workflow, String job, String uses) {
        return steps(workflow, job).stream().filter(s -> String.valueOf(s.get("uses")).startsWith(uses + "@")).findFirst().orElseThrow();
    }

    @Test
    @SuppressWarnings("unchecked")
    void releaseBuildsBothPlatformsWithJibAndJoinsThemOnAVersionTag() {
        Map<String, Object> release = workflow("release.yml");
        Object on = release.containsKey("on") ? release.get("on") : release.get("true"); // YAML 1.1 reads "on" as true

        assertThat(((Map<String, Object>) ((Map<String, Object>) on).get("push")).get("tags")).isEqualTo(List.of("v*"));
        Map<String, Object> matrix = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) release.get("jobs"))
                .get("image")).get("strategy")).get("matrix");
        assertThat((List<Map<String, Object>>) matrix.get("include")).extracting(m -> m.get("platform")).containsExactly("amd64", "arm64");
        String build = steps(release, "image").stream().map(s -> String.valueOf(s.get("run"))).filter(r -> r.contains("mvn ")).findFirst().orElseThrow();
        assertThat(build).as("the tests' build, on the release's base").contains("verify jib:build").contains("-DskipTests")
                .contains("-Dimage.base=").contains("-Dimage.jmods=").contains("-Djib.from.platforms=linux/${{ matrix.platform }}");
        assertThat(String.join("\n", steps(release, "manifest").stream().map(s -> String.valueOf(s.get("run"))).toList()))
                .contains("docker buildx imagetools create -t \"$IMAGE:$tag\" \"$IMAGE:$VERSION-amd64\" \"$IMAGE:$VERSION-arm64\"");
        assertThat(String.join("\n", steps(release, "chart").stream().map(s -> String.valueOf(s.get("run"))).toList()))
                .contains("helm package charts/hpa-controller --version \"$VERSION\" --app-version \"$VERSION\"")
                .contains("helm push \"dist/hpa-controller-$VERSION.tgz\" \"oci://");
    }

    /** The release rewrites the chart's image.repository line; the line must be there to be rewritten. */
    @Test
    void theChartsImageLineIsTheOneTheReleaseRewrites() {
        String run = steps(workflow("release.yml"), "chart").stream().map(s -> String.valueOf(s.get("run")))
                .filter(r -> r.contains("sed -i")).findFirst().orElseThrow();
        Matcher m = Pattern.compile("s\\|\\^(.*?)\\\\\\$\\|").matcher(run);

        assertThat(m.find()).as(run).isTrue();
        assertThat(Manifests.read(HelmChart.CHART_DIR.resolve("values.yaml")).lines()).contains(m.group(1));
    }

    @Test
    void ciRunsTheCiScript() {
        assertThat(steps(workflow("ci.yml"), "verify")).anySatisfy(s -> assertThat(s.get("run")).isEqualTo(".ci/run"));
    }

    /** Every action at an exact release (vX.Y.Z), never a moving major tag or a branch. */
    @Test
    void everyActionIsPinnedToAVersion() {
        List<String> uses = new ArrayList<>();
        for (String file : List.of("ci.yml", "release.yml")) {
            Matcher m = Pattern.compile("(?m)^\\s*(?:-\\s*)?uses:\\s*(\\S+)").matcher(Manifests.read(WORKFLOWS.resolve(file)));
            while (m.find()) {
                uses.add(m.group(1));
            }
        }

        assertThat(uses).hasSizeGreaterThan(5).allSatisfy(u -> assertThat(u).matches("[\\w.-]+/[\\w.-]+@v\\d+\\.\\d+\\.\\d+"));
    }
}
