package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.hpacontroller.bench.Bench;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile's invariants, read from the file (no Docker engine here; CI also lints it with
 * dockerfile-utils). One instruction per entry, continuation lines joined, comments dropped.
 */
class DockerfileTest {

    private record Instruction(String keyword, String arguments) {
    }

    private static final List<Instruction> INSTRUCTIONS = parse(Manifests.read(Path.of("Dockerfile")));

    @Test
    void buildsInOneStageAndRunsInAnother() {
        List<String> froms = arguments("FROM");

        assertThat(froms).hasSize(2);
        assertThat(froms.get(0)).as("the jar is built once, on the build machine's platform, for every target platform")
                .startsWith("--platform=$BUILDPLATFORM maven:").contains("temurin-17").endsWith(" AS build");
        assertThat(froms.get(1)).startsWith("eclipse-temurin:17-jre").doesNotContain(" AS ");
        assertThat(finalStage()).as("nothing runs in the per-platform stage (no emulation needed)")
                .noneMatch(i -> i.keyword().equals("RUN"));
        assertThat(finalStage()).anySatisfy(i -> assertThat(i.toString()).contains("COPY", "--from=build"));
    }

    @Test
    void everyBaseImageIsPinnedToATagOtherThanLatest() {
        for (String from : arguments("FROM")) {
            String image = from.replaceFirst("^--platform=\\S+\\s+", "").split("\\s+")[0];
            assertThat(image).as(from).matches(".+:[^/]+|.+@sha256:[0-9a-f]{64}");
            assertThat(image).as(from).doesNotEndWith(":latest");
        }
    }

    @Test
    void finalStageRunsAsTheNumericNonRootUserOfThePod() {
        List<Instruction> users = finalStage().stream().filter(i -> i.keyword().equals("USER")).toList();

        assertThat(users).isNotEmpty();
        String user = users.get(users.size() - 1).arguments();
        assertThat(user).matches("\\d+(:\\d+)?");
        long uid = Long.parseLong(user.split(":")[0]);
        assertThat(uid).isNotZero();
        Long podUser = Manifests.deployDir().single(Deployment.class)
                .getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser();
        assertThat(podUser).as("deploy/ runAsUser").isEqualTo(uid);
    }

    @Test
    void shipsTheJarTheBuildProducesAndRunsItWithContainerAwareJvmSettings() {
        String shadedJar = xmlElement(Manifests.read(Path.of("pom.xml")), "outputFile")
                .replace("${project.build.directory}/", "");
        String copy = finalStage().stream().filter(i -> i.keyword().equals("COPY") && i.arguments().startsWith("--from=build"))
                .map(Instruction::arguments).findFirst().orElseThrow();

        assertThat(copy).isEqualTo("--from=build /build/target/" + shadedJar + " /app/hpa-controller.jar");
        assertThat(arguments("WORKDIR")).first().isEqualTo("/build");
        assertThat(arguments("ENTRYPOINT")).singleElement().isEqualTo("[\"java\", \"-jar\", \"/app/hpa-controller.jar\"]");
        assertThat(arguments("ENV")).as("the JVM options bench measures, replaceable from the environment (the chart's jvmOptions)")
                .contains("JDK_JAVA_OPTIONS=\"" + String.join(" ", Bench.IMAGE_JVM_OPTIONS) + "\"");
        assertThat(arguments("CMD")).singleElement().isEqualTo("[\"run\"]");
    }

    @Test
    void buildContextHoldsOnlyWhatTheBuildCopies() {
        List<String> ignore = Manifests.read(Path.of(".dockerignore")).lines()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();

        assertThat(ignore).containsExactly("*", "!pom.xml", "!src/main/");
        assertThat(arguments("COPY")).filteredOn(a -> !a.startsWith("--from"))
                .containsExactly("pom.xml .", "src/main ./src/main");
    }

    private static List<String> arguments(String keyword) {
        return INSTRUCTIONS.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::arguments).toList();
    }

    private static List<Instruction> finalStage() {
        int lastFrom = 0;
        for (int i = 0; i < INSTRUCTIONS.size(); i++) {
            if (INSTRUCTIONS.get(i).keyword().equals("FROM")) {
                lastFrom = i;
            }
        }
        return INSTRUCTIONS.subList(lastFrom, INSTRUCTIONS.size());
    }

    private static List<Instruction> parse(String dockerfile) {
        List<Instruction> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : dockerfile.lines().toList()) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || trimmed.isEmpty() && current.length() == 0) {
                continue;
            }
            boolean continues = trimmed.endsWith("\\");
            current.append(continues ? trimmed.substring(0, trimmed.length() - 1).strip() + " " : trimmed);
            if (!continues) {
                String[] parts = current.toString().split("\\s+", 2);
                instructions.add(new Instruction(parts[0].toUpperCase(), parts.length > 1 ? parts[1].strip() : ""));
                current.setLength(0);
            }
        }
        return instructions;
    }

    private static String xmlElement(String xml, String element) {
        Matcher m = Pattern.compile("<" + element + ">([^<]+)</" + element + ">").matcher(xml);
        assertThat(m.find()).as("<%s> in pom.xml", element).isTrue();
        return m.group(1).strip();
    }
}
