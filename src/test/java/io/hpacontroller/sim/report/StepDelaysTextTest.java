package io.hpacontroller.sim.report;

import io.hpacontroller.sim.ScaleDelays.Cause;
import io.hpacontroller.sim.ScaleDelays.Span;
import io.hpacontroller.sim.Simulation;
import io.hpacontroller.sim.SimulationResult;
import io.hpacontroller.sim.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 38.7 on the shipped examples: the window that held a step is named, overlapping delays count once, lines wrap. */
class StepDelaysTextTest {

    private static SimulationResult run(String example) throws Exception {
        return Simulation.run(new ScenarioReader().read(Path.of("examples", example + ".yaml")));
    }

    private static String printed(SimulationResult r) {
        StringWriter out = new StringWriter();
        SummaryText.print(r, new PrintWriter(out, true));
        return out.toString();
    }

    @Test
    void theStepAfterAScaleDownNamesTheWindowThatHeldIt() throws Exception {
        SimulationResult r = run("downscale-stabilization");
        String line = StepDelaysText.line(r.scaleSteps().get(0), "->");
        // timeline.csv: "holding at 3: the 5m scale-down window keeps ..." from 450 s to 705 s, 2 from 720 s
        assertThat(line).contains("3 -> 2 at 12m, 5m after the demand asked for it: waiting for the sync 15s, "
                + "the scale-down stabilization window 4m45s").doesNotContain("not asked for");
        assertThat(StepDelaysText.line(r.scaleSteps().get(1), "->")).doesNotContain("not asked for");
    }

    @Test
    void overlappingDelaysOfManyStepsCountTheWallTimeTheyCover() throws Exception {
        SimulationResult r = run("compare-two-specs");
        String tight = StepDelaysText.line(r.scaleSteps().get(0), "->");
        // before: "the scale-down stabilization window 1h49m15s (23 steps)" in a 40-minute run
        assertThat(tight).contains("the scale-downs by the scale-down stabilization window 13m30s (25 steps)");
        for (List<io.hpacontroller.sim.ScaleDelays.Step> steps : r.scaleSteps()) {
            List<Span> window = steps.stream().flatMap(s -> s.spans().stream())
                    .filter(p -> p.what().equals("the scale-down stabilization window")).toList();
            assertThat(StepDelaysText.covered(window)).isPositive().isLessThanOrEqualTo(40 * 60_000L);
        }
    }

    @Test
    void theUnionCountsAnOverlapOnce() {
        List<Span> spans = List.of(span(0, 300), span(100, 400), span(500, 600), span(550, 560));
        assertThat(StepDelaysText.covered(spans)).isEqualTo(500_000);
    }

    private static Span span(long from, long to) {
        return new Span(Cause.CAP, "the scale-down stabilization window", from * 1000, to * 1000);
    }

    @Test
    void theConsoleSummaryWrapsAtOneHundredCharacters() throws Exception {
        for (String example : List.of("downscale-stabilization", "compare-two-specs")) {
            String text = printed(run(example));
            assertThat(text).contains("delayed by:");
            // the replica changes and what delayed them (the table above them has its own width)
            assertThat(text.lines().filter(l -> l.startsWith("Replicas of ") || l.startsWith(" "))).as(example).isNotEmpty().allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(StepDelaysText.WIDTH));
        }
    }

    @Test
    void wrappingBreaksAtSpacesAndIndentsTheRest() {
        String text = "  delayed by: " + "word ".repeat(40).strip();
        List<String> lines = StepDelaysText.wrap(text, "      ");
        assertThat(lines).hasSizeGreaterThan(1).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
        assertThat(lines.get(0)).startsWith("  delayed by: word");
        assertThat(lines.subList(1, lines.size())).allSatisfy(l -> assertThat(l).startsWith("      word"));
        assertThat(String.join(" ", lines).replaceAll(" +", " ").strip()).isEqualTo(text.strip());
    }
}
