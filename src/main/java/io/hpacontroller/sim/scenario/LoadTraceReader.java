package io.hpacontroller.sim.scenario;

import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.SettingNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads a scenario's {@code load} key into a {@link LoadTrace}: inline {@code points} ([time, demand] pairs or
 * {time, demand} mappings) or a {@code csv} file of time,demand lines (comments, blank lines and one header
 * line skipped), with its interpolation, unit and noise.
 */
final class LoadTraceReader {

    private LoadTraceReader() {
    }

    /** The trace at {@code n}: inline {@code points} or a {@code csv} file (relative to {@code dir}), sorted by time. */
    static LoadTrace read(SettingNode n, Path dir) throws ScenarioException {
        n.mapping(Set.of("points", "csv", "interpolation", "unit", "noise"));
        boolean hasPoints = !n.child("points").isMissing();
        boolean hasCsv = !n.child("csv").isMissing();
        if (hasPoints == hasCsv) {
            throw n.error("give exactly one of points (a list of [time, demand]) or csv (a file of time,demand lines)");
        }
        List<LoadTrace.Point> points = hasPoints ? inlinePoints(n.child("points")) : csvPoints(n.child("csv"), dir);
        if (points.isEmpty()) {
            throw n.error("the trace has no points");
        }
        List<LoadTrace.Point> sorted = new ArrayList<>(points);
        sorted.sort((a, b) -> Long.compare(a.timeMillis(), b.timeMillis()));
        String interp = n.child("interpolation").textOr("step");
        LoadTrace.Interpolation interpolation = switch (interp) {
            case "step" -> LoadTrace.Interpolation.STEP;
            case "linear" -> LoadTrace.Interpolation.LINEAR;
            default -> throw n.child("interpolation").error("expected step or linear, got \"" + interp + "\"");
        };
        LoadTrace.Noise noise = null;
        SettingNode z = n.child("noise");
        if (!z.isMissing()) {
            z.mapping(Set.of("relative", "seed"));
            noise = new LoadTrace.Noise(z.child("relative").numberOr(0, 0, 10), z.child("seed").longOr(1));
        }
        return new LoadTrace(List.copyOf(sorted), interpolation, n.child("unit").textOr("demand"), noise);
    }

    private static List<LoadTrace.Point> inlinePoints(SettingNode n) throws ScenarioException {
        List<LoadTrace.Point> out = new ArrayList<>();
        for (SettingNode p : n.list()) {
            SettingNode time;
            SettingNode demand;
            if (p.raw().isArray()) {
                if (p.raw().size() != 2) {
                    throw p.error("expected [time, demand], e.g. [30s, 1000]");
                }
                List<SettingNode> pair = p.list();
                time = pair.get(0);
                demand = pair.get(1);
            } else if (p.raw().isObject()) {
                p.mapping(Set.of("time", "demand"));
                time = p.child("time");
                demand = p.child("demand");
                if (time.isMissing() || demand.isMissing()) {
                    throw p.error("needs both time and demand");
                }
            } else {
                throw p.error("expected [time, demand] or {time: ..., demand: ...}, got " + p.describe());
            }
            out.add(point(time, demand));
        }
        return out;
    }

    private static LoadTrace.Point point(SettingNode time, SettingNode demand) throws ScenarioException {
        long t = time.millisOr(0);
        double d = demand.numberOr(0);
        if (d < 0) {
            throw demand.error("demand must not be negative, got " + d);
        }
        return new LoadTrace.Point(t, d);
    }

    private static List<LoadTrace.Point> csvPoints(SettingNode n, Path dir) throws ScenarioException {
        String name = n.textOr(null);
        Path file = dir == null ? Path.of(name) : dir.resolve(name);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw n.error("cannot read the load CSV " + file + " (" + e.getClass().getSimpleName() + ")");
        }
        List<LoadTrace.Point> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] cells = line.split("\\s*[,;\\t]\\s*");
            String where = file.getFileName() + " line " + (i + 1);
            if (cells.length < 2) {
                throw n.error(where + ": expected time,demand, got \"" + line + "\"");
            }
            long t = GoDuration.parseMillisOrSeconds(cells[0]);
            double d;
            try {
                d = Double.parseDouble(cells[1]);
            } catch (NumberFormatException e) {
                d = Double.NaN;
            }
            if (t < 0 || Double.isNaN(d) || Double.isInfinite(d) || d < 0) {
                if (out.isEmpty() && i == firstContentLine(lines)) {
                    continue; // a header line
                }
                throw n.error(where + ": expected a time (seconds) and a demand (a number, not negative), got \"" + line + "\"");
            }
            out.add(new LoadTrace.Point(t, d));
        }
        return out;
    }

    private static int firstContentLine(List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (!l.isEmpty() && !l.startsWith("#")) {
                return i;
            }
        }
        return -1;
    }
}
