package io.hpacontroller.cli;

import io.hpacontroller.sim.report.TimelineCsv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {

    @Test
    void theSeedExampleWritesTheTimelineTheReportAndPrintsTheSummary(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("sim");
        CommandRun r = CommandRun.of("simulate", "examples/seed-004-burst.yaml", "--out", out.toString());

        assertThat(r.exit()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("Scenario seed-004-burst: 8m simulated in")
                .contains("Load first increases at 30s.")
                .contains("Replicas of nginx-deployment: 2 -> 4 (56s) -> 8 (1m11s) -> 10 (1m26s) -> 2 (5m56s)")
                .containsPattern("nginx-deployment +26s +11s +11s +3240 +4 +10 +2 +0 of 32")
                .contains("Invariants: ").contains(", 0 violations");
        List<String> timeline = Files.readAllLines(out.resolve("timeline.csv"));
        assertThat(timeline.get(0)).startsWith("time_seconds,hpa,demand,ready_pods,replicas,desired_replicas,metric_value,reason").isEqualTo(TimelineCsv.HEADER);
        assertThat(timeline).hasSize(1 + 32); // one row per HPA per sync: 11 s, 26 s, ... 476 s
        assertThat(timeline.get(4)).isEqualTo("56,nginx-deployment,0,2,4,4,1835,"
                + "SuccessfulRescale: cpu resource utilization (percentage of request) above target (ScalingLimited: ScaleUpLimit),1000,4,184,scale_up,"
                // the decision trace's key fields, after the columns above
                + "cpu resource utilization (percentage of request),20,91.75,0.1,false,cpu resource utilization (percentage of request),184,,4,"
                + "ScaleUpLimit,2,10,,,\"scaling up from 2 to 4: the scale-up limit max(2 x 2, 4) = 4 (the metrics recommend 184); "
                + "cpu resource utilization (percentage of request) 1835% against a target of 20% recommends 184\","
                // metric_age_seconds: the sample of the scrape at 54 s covers data up to 44 s (10 s old when scraped), read at 56 s
                + "12");
        assertThat(timeline.get(5)).startsWith("71,nginx-deployment,0,4,8,8,0,SuccessfulRescale: the 5m scale-down window keeps the recommendation of 184 made 15s ago"
                + " (ScalingLimited: ScaleUpLimit),")
                .contains(",184,scaleDown,8,StabilizationWindow;ScaleUpLimit,2,10,,,\"scaling up from 4 to 8: the 5m scale-down window keeps "
                        + "the recommendation of 184 made 15s ago; without it: 2; the scale-up limit max(2 x 4, 4) = 8\"");
        // the burst (1030 millicores from 30 s to 41 s) falls between syncs: no timeline row shows it, demand.csv does
        assertThat(timeline.subList(1, timeline.size())).allSatisfy(row -> assertThat(row.split(",")[2]).isEqualTo("0"));
        List<String> demand = Files.readAllLines(out.resolve("demand.csv"));
        assertThat(demand.get(0)).isEqualTo("time_seconds,demand,capacity[nginx-deployment],ready_pods[nginx-deployment],pods[nginx-deployment]");
        assertThat(demand).hasSize(1 + 481); // one row per 1 s step from 0 to 480 s; every sync falls on a step
        assertThat(demand.subList(1, demand.size())).filteredOn(row -> !row.split(",")[1].equals("0"))
                .extracting(row -> row.split(",")[0]).containsExactly("30", "31", "32", "33", "34", "35", "36", "37", "38", "39", "40");
        assertThat(demand).contains("30,1030,1000,2,2", "60,0,2000,4,4", "100,0,5000,10,10");
        assertThat(Files.readAllLines(out.resolve("events.csv"))).contains(
                "56,nginx-deployment,Normal,SuccessfulRescale,New size: 4; reason: cpu resource utilization (percentage of request) above target");
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<svg id=\"chart\"").contains("id=\"series-replicas-0\"").contains("<table id=\"summary\">")
                .doesNotContain("<script").doesNotContainPattern("(src|href)=\"https?:");
    }

    @Test
    void theOutputDirectoryDefaultsToSimulation() {
        assertThat(Main.commandLine().getSubcommands().get("simulate").getCommandSpec().findOption("--out").defaultValue()).isEqualTo("simulation");
    }

    @Test
    void aBadScenarioIsExitCode2WithTheProblemAndNoStackTrace(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "duration: 5m\nworkload: {containers: [{name: a, requests: {cpu: 1}}]}\nload: {points: [[0, 1]]}\nhpas: [{kind: Deployment}]\n");

        CommandRun r = CommandRun.of("simulate", bad.toString(), "--out", dir.resolve("out").toString());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("simulate: " + bad + ": hpas[0]: expected apiVersion autoscaling/v2 and kind HorizontalPodAutoscaler,"
                + " got no apiVersion Deployment");
        assertThat(r.out()).isEmpty();
        assertThat(dir.resolve("out")).doesNotExist();
    }

    /** Two HPA specs; the second gets the change under test. */
    static final String TWO_SPECS = """
            duration: 2m
            workload: {replicas: 2, containers: [{name: app, requests: {cpu: 100m}}]}
            load: {points: [[0, 100]]}
            hpas:
            - apiVersion: autoscaling/v2
              kind: HorizontalPodAutoscaler
              metadata: {name: good}
              spec:
                scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app}
                maxReplicas: 5
            - apiVersion: autoscaling/v2
              kind: HorizontalPodAutoscaler
              metadata: {name: bad}
              spec:
                scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app}
                minReplicas: 1
                maxReplicas: 5
                metrics:
                - type: Resource
                  resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
            """;

    static Stream<Arguments> specsTheApiServerRefuses() {
        return Stream.of(
                Arguments.of("type: Utilization,", "type: Utilisation,",
                        "hpas[1].spec.metrics[0].resource.target.type: Invalid value: \"Utilisation\": must be either Utilization, Value, or AverageValue"),
                Arguments.of("- type: Resource", "- type: Cpu",
                        "hpas[1].spec.metrics[0].type: Unsupported value: \"Cpu\": supported values: \"ContainerResource\", \"External\", \"Object\","
                                + " \"Pods\", \"Resource\""),
                Arguments.of("averageUtilization: 50", "averageUtilisation: 50",
                        "hpas[1].spec.metrics[0].resource.target.averageUtilisation: unknown field (known fields: averageUtilization, averageValue,"
                                + " type, value)"),
                Arguments.of("    minReplicas: 1", "    minReplica: 1",
                        "hpas[1].spec.minReplica: unknown field (known fields: behavior, maxReplicas, metrics, minReplicas, scaleTargetRef)"),
                Arguments.of("averageUtilization: 50", "averageUtilization: 0",
                        "hpas[1].spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"),
                Arguments.of("averageUtilization: 50", "averageUtilization: \"50%\"",
                        "hpas[1].spec.metrics[0].resource.target.averageUtilization: cannot unmarshal string \"50%\" into int32"),
                Arguments.of("    minReplicas: 1", "    minReplicas: 6",
                        "hpas[1].spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"),
                Arguments.of("    maxReplicas: 5\n    metrics", "    maxReplicas: 5\n    behavior: {scaleDown: {stabilizationWindowSeconds: 7200,"
                        + " policies: [{type: Percent, value: 0, periodSeconds: 60}]}}\n    metrics",
                        "hpas[1].spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 7200: must be less than or equal to 3600; "
                                + "hpas[1].spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero"));
    }

    /** Such a spec used to run with every sync failing, and exit 0. */
    @ParameterizedTest(name = "{1}")
    @MethodSource("specsTheApiServerRefuses")
    void aSpecTheApiServerRefusesIsExitCode2WithItsPathBeforeAnythingRuns(String from, String to, String error, @TempDir Path dir) throws IOException {
        assertThat(TWO_SPECS).contains(from);
        Path file = Files.writeString(dir.resolve("s.yaml"), TWO_SPECS.replaceFirst("(?s)(name: bad.*?)" + java.util.regex.Pattern.quote(from),
                "$1" + java.util.regex.Matcher.quoteReplacement(to)));
        Path out = dir.resolve("out");

        CommandRun r = CommandRun.of("simulate", file.toString(), "--out", out.toString());

        assertThat(r.err().strip()).isEqualTo("simulate: " + file + ": " + error);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(out).doesNotExist();
        assertThat(CommandRun.of("simulate", Files.writeString(dir.resolve("ok.yaml"), TWO_SPECS).toString(), "--out", out.toString()).exit())
                .as("the unchanged scenario runs").isZero();
    }

    @Test
    void notYamlAndAMissingFileAreExitCode2Too(@TempDir Path dir) throws IOException {
        Path garbage = dir.resolve("garbage.yaml");
        Files.writeString(garbage, "duration: [10m\n  : :\n");
        CommandRun g = CommandRun.of("simulate", garbage.toString());
        assertThat(g.exit()).isEqualTo(2);
        assertThat(g.err()).startsWith("simulate: " + garbage + ": not valid YAML: ").doesNotContain("Exception").doesNotContain("\tat ");

        CommandRun missing = CommandRun.of("simulate", dir.resolve("nope.yaml").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("cannot read the scenario file").doesNotContain("\tat ");
    }

    @Test
    void simulateHasHelpThatDescribesTheScenarioFormat() {
        assertThat(CommandRun.of("--help").out()).contains("simulate");
        String help = CommandRun.of("simulate", "--help").out();
        assertThat(help).contains("Usage: hpa-controller simulate [-hV] [--example] [--sweep-phases] [--out=DIR]")
                .contains("hpa-controller simulate --example > my-scenario.yaml");
        for (String key : List.of("duration", "step", "controller", "workload", "metrics", "load", "hpas", "faults")) {
            assertThat(help).as("the help names the scenario key %s", key).containsPattern("(?m)^  " + key + ":");
        }
        assertThat(help.lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(80));
    }

    /** The printed example is a scenario the reader accepts and the simulator runs, and it shows every key docs/simulator.md lists. */
    @Test
    void theExampleIsAScenarioThatRunsAndShowsEveryKey(@TempDir Path dir) throws IOException {
        CommandRun example = CommandRun.of("simulate", "--example");
        assertThat(example.exit()).isZero();
        Path file = Files.writeString(dir.resolve("my-scenario.yaml"), example.out());

        CommandRun r = CommandRun.of("simulate", file.toString(), "--out", dir.resolve("out").toString());

        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Scenario example: 30m simulated").contains("Replicas of upstream-defaults: 2 -> ")
                .contains("Replicas of gentle-scale-down: 2 -> ").contains(", 0 violations");
        String page = Files.readString(Path.of("docs/simulator.md"));
        String table = page.substring(page.indexOf("## Scenario file"), page.indexOf("## Examples"));
        List<String> keys = table.lines().filter(l -> l.startsWith("| `"))
                .flatMap(l -> java.util.regex.Pattern.compile("`([^`]+)`").matcher(l.split("\\|")[1]).results().map(m -> m.group(1)))
                .map(k -> k.substring(k.lastIndexOf('.') + 1)).toList();
        assertThat(keys).hasSizeGreaterThan(25);
        for (String key : keys) {
            assertThat(example.out()).as("the example shows %s", key).containsPattern("(?m)^[ #]*-? ?" + java.util.regex.Pattern.quote(key) + ":");
        }
    }

    @Test
    void anOutDirectoryThatCannotBeWrittenIsExitCode2WithTheReasonBeforeSimulating(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");

        CommandRun onAFile = CommandRun.of("simulate", "examples/seed-004-burst.yaml", "--out", file.toString());
        assertThat(onAFile.exit()).isEqualTo(2);
        assertThat(onAFile.err().strip()).isEqualTo("simulate: cannot write to " + file + ": " + file + " exists and is not a directory");
        assertThat(onAFile.out()).as("nothing simulated").isEmpty();

        Path under = file.resolve("sim");
        CommandRun underAFile = CommandRun.of("simulate", "examples/seed-004-burst.yaml", "--out", under.toString());
        assertThat(underAFile.exit()).isEqualTo(2);
        assertThat(underAFile.err().strip()).isEqualTo("simulate: cannot write to " + under + ": " + under + ": Not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }

    @Test
    void withoutAScenarioItSaysHowToGetOne() {
        CommandRun r = CommandRun.of("simulate");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Missing required parameter: 'SCENARIO'").contains("simulate --example");
    }
}
