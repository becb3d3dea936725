package io.hpacontroller.sim.report;

import io.hpacontroller.sim.ScaleDelays;
import io.hpacontroller.sim.ScaleDelays.Delay;
import io.hpacontroller.sim.ScaleDelays.Span;
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

    /** The console's width: the lines of {@link #wrapped} are no longer, but for a single word that is. */
    static final int WIDTH = 100;

    /** The line of one spec: every step with what delayed it, or for many steps the sums and the longest. */
    static String line(List<Step> steps, String arrow) {
        return String.join("; ", parts(steps, arrow)) + ".";
    }

    /**
     * The same for the console: "  delayed by: " and each part (a step, or a sum) on lines of its own, wrapped at
     * {@link #WIDTH} with the continuation indented.
     */
    static List<String> wrapped(List<Step> steps, String arrow) {
        List<String> parts = parts(steps, arrow);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            String text = (i == 0 ? "  delayed by: " : "    ") + parts.get(i) + (i == parts.size() - 1 ? "." : ";");
            lines.addAll(wrap(text, "      "));
        }
        return lines;
    }

    /** {@code text} broken at spaces into lines of at most {@link #WIDTH} characters, each after the first starting with {@code indent}. */
    static List<String> wrap(String text, String indent) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        boolean bare = true; // nothing on the line yet but its indent
        for (String word : text.split(" ")) {
            if (!bare && line.length() + 1 + word.length() > WIDTH) {
                lines.add(line.toString());
                line = new StringBuilder(indent);
                bare = true;
            }
            if (!bare) {
                line.append(' ');
            }
            line.append(word);
            bare = false;
        }
        lines.add(line.toString());
        return lines;
    }

    private static List<String> parts(List<Step> steps, String arrow) {
        if (steps.isEmpty()) {
            return List.of("no scale step");
        }
        if (steps.size() <= STEPS_LISTED) {
            return steps.stream().map(s -> step(s, arrow)).toList();
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
        return parts;
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

    /**
     * The delays of these steps by what held them, the longest first: "metrics lag 12m (31 steps), ...". The time is the
     * wall time its stretches cover (the union): steps asked for from the same moment were held over the same stretch,
     * which counts once.
     */
    private static String sums(List<Step> steps) {
        Map<String, List<Span>> spans = new LinkedHashMap<>();
        Map<String, long[]> sum = new LinkedHashMap<>();
        for (Step s : steps) {
            for (Delay d : s.delays()) {
                sum.computeIfAbsent(d.what(), k -> new long[2])[1]++;
            }
            for (Span p : s.spans()) {
                spans.computeIfAbsent(p.what(), k -> new ArrayList<>()).add(p);
            }
        }
        sum.forEach((what, v) -> v[0] = covered(spans.getOrDefault(what, List.of())));
        return String.join(", ", sum.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                .map(e -> e.getKey() + " " + Figures.duration(e.getValue()[0]) + " (" + e.getValue()[1] + (e.getValue()[1] == 1 ? " step)" : " steps)"))
                .toList());
    }

    /** The wall time the spans cover together. */
    static long covered(List<Span> spans) {
        List<Span> sorted = spans.stream().sorted(Comparator.comparingLong(Span::startMillis)).toList();
        long total = 0;
        long end = Long.MIN_VALUE;
        for (Span p : sorted) {
            long start = Math.max(p.startMillis(), end);
            if (p.endMillis() > start) {
                total += p.endMillis() - start;
                end = p.endMillis();
            }
        }
        return total;
    }
}
