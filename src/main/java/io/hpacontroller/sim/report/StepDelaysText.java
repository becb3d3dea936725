package io.hpacontroller.sim.report;

import io.hpacontroller.sim.ScaleDelays;
import io.hpacontroller.sim.ScaleDelays.Delay;
import io.hpacontroller.sim.ScaleDelays.Step;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** What delayed each scale step of a spec ({@link ScaleDelays}), in words: the report's line per spec, and the console's. */
final class StepDelaysText {

    /** Steps named one by one; a spec with more gets its delays summed by cause, and its longest steps. */
    static final int STEPS_LISTED = 5;

    private StepDelaysText() {
    }

    /** The line of one spec: every step with what delayed it, or for many steps the sums and the longest. */
    static String line(List<Step> steps, String arrow) {
        if (steps.isEmpty()) {
            return "no scale step.";
        }
        if (steps.size() <= STEPS_LISTED) {
            return String.join("; ", steps.stream().map(s -> step(s, arrow)).toList()) + ".";
        }
        List<String> parts = new ArrayList<>();
        long ups = steps.stream().filter(Step::up).count();
        parts.add(steps.size() + " scale steps (" + ups + " up, " + (steps.size() - ups) + " down)");
        for (boolean up : new boolean[] {true, false}) {
            Predicate<Step> direction = s -> s.up() == up;
            String sums = sums(steps.stream().filter(direction).toList());
            if (!sums.isEmpty()) {
                parts.add((up ? "the scale-ups were held by " : "the scale-downs by ") + sums);
            }
            steps.stream().filter(direction).max(Comparator.comparingLong(Step::lateMillis)).filter(s -> s.lateMillis() > 0)
                    .ifPresent(s -> parts.add("the longest " + (up ? "up" : "down") + ": " + step(s, arrow)));
        }
        return String.join("; ", parts) + ".";
    }

    /** "2 → 4 at 56s, 26s after the demand asked for it: waiting for the sync 11s, metrics lag 15s". */
    static String step(Step s, String arrow) {
        String head = s.from() + " " + arrow + " " + s.to() + " at " + Figures.duration(s.timeMillis());
        if (s.askedAtMillis() < 0) {
            return head + ", not asked for by the demand (" + s.unasked() + ")";
        }
        if (s.lateMillis() == 0) {
            return head + ", as the demand asked for it";
        }
        return head + ", " + Figures.duration(s.lateMillis()) + " after the demand asked for it: " + delays(s);
    }

    /** A step's delay on its own, for the changes table: "26s: waiting for the sync 11s, metrics lag 15s". */
    static String delayedBy(Step s) {
        if (s.askedAtMillis() < 0) {
            return "not asked for by the demand (" + s.unasked() + ")";
        }
        return s.lateMillis() == 0 ? "nothing" : Figures.duration(s.lateMillis()) + ": " + delays(s);
    }

    /** "waiting for the sync 11s, metrics lag 15s"; empty when nothing held the step. */
    private static String delays(Step s) {
        return String.join(", ", s.delays().stream().map(d -> d.what() + " " + Figures.duration(d.millis())).toList());
    }

    /** The delays of these steps summed by what held them, the longest first: "metrics lag 12m (31 steps), ...". */
    private static String sums(List<Step> steps) {
        Map<String, long[]> sum = new LinkedHashMap<>();
        for (Step s : steps) {
            for (Delay d : s.delays()) {
                long[] v = sum.computeIfAbsent(d.what(), k -> new long[2]);
                v[0] += d.millis();
                v[1]++;
            }
        }
        return String.join(", ", sum.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                .map(e -> e.getKey() + " " + Figures.duration(e.getValue()[0]) + " (" + e.getValue()[1] + (e.getValue()[1] == 1 ? " step)" : " steps)"))
                .toList());
    }
}
