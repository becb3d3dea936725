package io.hpacontroller.cli;

import io.hpacontroller.sim.report.TimelineCsv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
                + "SuccessfulRescale: cpu resource utilization (percentage of request) above target (ScalingLimited: ScaleUpLimit),1000,4,184,scale_up");
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
    void simulateHasHelp() {
        assertThat(CommandRun.of("--help").out()).contains("simulate");
        assertThat(CommandRun.of("simulate", "--help").out()).contains("Usage: hpa-controller simulate [-hV] [--out=DIR] SCENARIO");
    }
}
