package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.calc.ReplicaCalculator;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.normalize.Behavior;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.MetricFailures;
import io.hpacontroller.core.normalize.Normalization;
import io.hpacontroller.core.normalize.Normalizer;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.MetricEvaluator;
import io.hpacontroller.core.reconcile.MetricStatuses;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.input.ParseProblem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs conformance cases (format: {@code shared/conformance/SCHEMA.md}) through the decision core, the
 * same {@link Reconciler}, {@link MetricEvaluator} and {@link Normalizer} the controller uses, with the
 * case's world behind the ports. Every case's decision trace is checked against the decision
 * ({@link TraceConsistency}).
 */
public final class ConformanceRunner {

    /** "now" for every case; case times are relative to it. */
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final KubernetesSerialization serialization = new KubernetesSerialization();
    private final CaseFormat format = new CaseFormat(serialization);

    /** Where a reconcile case's expected status holds quantities: the current value of a metric. */
    private static final Pattern STATUS_QUANTITY = Pattern.compile("status\\.currentMetrics\\[\\d+]\\.\\w+\\.current\\.(value|averageValue)");

    /**
     * The result of one case.
     *
     * @param name   the case's name (the file name when the file cannot be read)
     * @param passed whether the core decided as the case expects
     * @param detail what differed, or why the case could not run; null when passed
     */
    public record Result(String name, boolean passed, String detail) {
        public String line() {
            return passed ? "PASS " + name : "FAIL " + name + ": " + detail;
        }
    }

    /** Every {@code *.json} file under the given files or directories, sorted by path. */
    public static List<Path> findCases(List<Path> roots) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path root : roots) {
            if (Files.isRegularFile(root)) {
                out.add(root);
                continue;
            }
            if (!Files.isDirectory(root)) {
                throw new IOException("no such file or directory: " + root);
            }
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".json")).forEach(out::add);
            }
        }
        Collections.sort(out);
        return out;
    }

    /** Runs one case file. Never throws: a file that cannot be read or understood is a failure. */
    public Result run(Path file) {
        String name = file.getFileName().toString();
        JsonNode c;
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            return new Result(name, false, "cannot read case file " + file + ": " + firstLine(e));
        }
        try {
            c = serialization.unmarshal(text, JsonNode.class);
        } catch (RuntimeException e) {
            return new Result(name, false, "case file " + file + " is not valid JSON: " + ParseProblem.of(e));
        }
        if (c == null || !c.isObject()) {
            return new Result(name, false, "case file " + file + " is not a JSON object");
        }
        if (c.path("name").isTextual()) {
            name = c.get("name").asText();
        }
        String kind = c.path("kind").asText("");
        String problem = format.problem(kind, c);
        if (problem != null) {
            return new Result(name, false, format.kinds().contains(kind) ? "malformed case: " + problem : problem);
        }
        try {
            String diff = switch (kind) {
                case "calc" -> runCalc(c);
                case "normalize" -> runNormalize(c);
                default -> runReconcile(c);
            };
            return new Result(name, diff == null, diff);
        } catch (RuntimeException e) {
            return new Result(name, false, "malformed case: " + firstLine(e));
        }
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    static ControllerConfig config(JsonNode c) {
        JsonNode cfg = c.path("config");
        ControllerConfig d = ControllerConfig.defaults();
        return new ControllerConfig(
                cfg.path("tolerance").asDouble(d.tolerance()),
                Duration.ofSeconds(cfg.path("cpuInitializationPeriodSeconds").asLong(d.cpuInitializationPeriod().toSeconds())),
                Duration.ofSeconds(cfg.path("initialReadinessDelaySeconds").asLong(d.initialReadinessDelay().toSeconds())),
                Duration.ofSeconds(cfg.path("downscaleStabilizationSeconds").asLong(d.downscaleStabilization().toSeconds())),
                cfg.path("scaleToZeroEnabled").asBoolean(d.scaleToZeroEnabled()));
    }

    private <T> T convert(JsonNode node, Class<T> type) {
        return serialization.convertValue(node, type);
    }

    private Behavior behavior(JsonNode node, ControllerConfig cfg) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        return Behavior.withDefaults(convert(node, HorizontalPodAutoscalerBehavior.class), (int) cfg.downscaleStabilization().toSeconds());
    }

    // ---- calc ----

    private String runCalc(JsonNode c) {
        ControllerConfig cfg = config(c);
        long now = NOW.toEpochMilli();
        InMemoryCluster world = CaseWorld.load(c, now);
        MetricEvaluator evaluator = new MetricEvaluator(new ReplicaCalculator(cfg.cpuInitializationPeriod().toMillis(),
                cfg.initialReadinessDelay().toMillis()), world, world);
        MetricEvaluator.Context ctx = new MetricEvaluator.Context("test-namespace", Selector.everything(),
                c.path("specReplicas").asInt(), c.path("statusReplicas").asInt(),
                Behavior.tolerances(behavior(c.get("behavior"), cfg), cfg.tolerance()), now);
        MetricEvaluator.Evaluated result = evaluator.evaluate(ctx, convert(c.path("metric"), MetricSpec.class));
        MetricTrace p = result.trace();
        List<String> diffs = new ArrayList<>(TraceConsistency.ofMetric(p, ctx.specReplicas(), world.pods.size()));
        JsonNode expect = c.path("expect");
        if (expect.path("error").asBoolean(false)) {
            if (!p.failed()) {
                diffs.add(0, "expected the computation to fail, got a proposal of " + p.replicas() + " replicas");
            }
            return diffs.isEmpty() ? null : String.join("; ", diffs);
        }
        if (p.failed()) {
            return "expected a proposal, the computation failed: " + p.errorMessage();
        }
        if (expect.has("replicas") && expect.get("replicas").asInt() != p.replicas()) {
            diffs.add("replicas: expected " + expect.get("replicas").asInt() + ", got " + p.replicas());
        }
        MetricValueStatus current = MetricStatuses.current(result.status());
        if (expect.hasNonNull("utilization")) {
            Integer u = current.getAverageUtilization();
            if (u == null || u != expect.get("utilization").asInt()) {
                diffs.add("utilization: expected " + expect.get("utilization").asInt() + ", got " + u);
            }
        }
        if (expect.hasNonNull("value")) {
            var q = current.getValue() != null ? current.getValue() : current.getAverageValue();
            String d = JsonSubset.diff("value", expect.get("value"), q == null ? null : serialization.convertValue(q.toString(), JsonNode.class),
                    new JsonSubset.Quantities("value"::equals, expect.path("exactQuantities").asBoolean(false)));
            if (d != null) {
                diffs.add(d);
            }
        }
        return diffs.isEmpty() ? null : String.join("; ", diffs);
    }

    // ---- normalize ----

    private String runNormalize(JsonNode c) {
        ControllerConfig cfg = config(c);
        long now = NOW.toEpochMilli();
        int current = c.path("specReplicas").asInt();
        HpaHistory history = new HpaHistory();
        seedHistory(history, new MetricFailures(), c.path("history"), now);
        // the controller's first-sync rule, from the core: without remembered recommendations, this is the first sync
        Normalizer.recordInitialRecommendation(history, current, now);
        Behavior behavior = behavior(c.get("behavior"), cfg);
        int proposed = c.path("proposedReplicas").asInt();
        int min = c.path("minReplicas").asInt(1);
        int max = c.path("maxReplicas").asInt();
        Normalization n = Normalizer.normalizeDesiredReplicas(history, now, behavior, cfg.downscaleStabilization().toMillis(),
                current, proposed, min, max);
        JsonNode expect = c.path("expect");
        List<String> diffs = new ArrayList<>();
        if (expect.has("replicas") && expect.get("replicas").asInt() != n.replicas()) {
            diffs.add("replicas: expected " + expect.get("replicas").asInt() + ", got " + n.replicas());
        }
        JsonNode cond = expect.path("condition");
        if (cond.isObject()) {
            ObjectNode actual = serialization.convertValue(java.util.Map.of("type", "ScalingLimited",
                    "status", n.limited() ? "True" : "False", "reason", n.limitReason(), "message", n.limitMessage()), ObjectNode.class);
            String d = JsonSubset.diff("condition", cond, actual, JsonSubset.Quantities.NONE);
            if (d != null) {
                diffs.add(d);
            }
        }
        diffs.addAll(TraceConsistency.ofNormalization(n, current, min, max));
        return diffs.isEmpty() ? null : String.join("; ", diffs);
    }

    private static void seedHistory(HpaHistory history, MetricFailures failures, JsonNode h, long now) {
        if (h.isMissingNode() || h.isNull()) {
            return;
        }
        if (h.has("recommendations")) {
            List<HpaHistory.Recommendation> recs = new ArrayList<>();
            h.path("recommendations").forEach(r -> recs.add(new HpaHistory.Recommendation(r.path("replicas").asInt(),
                    now - r.path("secondsAgo").asLong() * 1000L)));
            history.setRecommendations(recs);
        }
        h.path("scaleUpEvents").forEach(e -> history.addScaleEvent(true, e.path("replicaChange").asInt(), now - e.path("secondsAgo").asLong() * 1000L));
        h.path("scaleDownEvents").forEach(e -> history.addScaleEvent(false, e.path("replicaChange").asInt(), now - e.path("secondsAgo").asLong() * 1000L));
        h.path("metricFailures").forEach(f -> failures.addMetricFailure(new MetricFailures.MetricFailure(f.path("metric").asText(),
                now - f.path("failingSinceSecondsAgo").asLong() * 1000L, f.path("fallback").asBoolean(false))));
    }

    // ---- reconcile ----

    /**
     * A reconcile case's sync: its world (what the core read and wrote), the HPA it synced and what it returned.
     */
    record CaseSync(InMemoryCluster world, HorizontalPodAutoscaler hpa, ReconcileOutcome outcome) {
    }

    /** Syncs the HPA of a reconcile case in the case's world. */
    CaseSync sync(JsonNode c) {
        ControllerConfig cfg = config(c);
        long now = NOW.toEpochMilli();
        InMemoryCluster world = CaseWorld.load(c, now);
        HorizontalPodAutoscaler hpa = convert(withAbsoluteTimes(c.path("hpa").deepCopy(), now), HorizontalPodAutoscaler.class);
        HistoryStore histories = new HistoryStore();
        seedHistory(histories.of(HpaKey.of(hpa)), histories.metricFailures(HpaKey.of(hpa)), c.path("history"), now);
        Reconciler reconciler = new Reconciler(cfg, Ports.of(world, SelectorOwnership.NONE), histories, Clock.fixed(NOW, ZoneOffset.UTC));
        return new CaseSync(world, hpa, reconciler.reconcile(hpa));
    }

    private String runReconcile(JsonNode c) {
        CaseSync sync = sync(c);
        InMemoryCluster world = sync.world();
        ReconcileOutcome outcome = sync.outcome();

        JsonNode expect = c.path("expect");
        List<String> diffs = new ArrayList<>();
        if (expect.has("scaledTo")) {
            JsonNode scaledTo = expect.get("scaledTo");
            List<Integer> want = scaledTo.isNull() ? List.of() : List.of(scaledTo.asInt());
            if (!want.equals(world.scaleWrites)) {
                diffs.add("scale writes: expected " + want + ", got " + world.scaleWrites);
            }
        }
        if (expect.has("status")) {
            String d = JsonSubset.diff("status", expect.get("status"), serialization.convertValue(outcome.status(), JsonNode.class),
                    new JsonSubset.Quantities(p -> STATUS_QUANTITY.matcher(p).matches(), expect.path("exactQuantities").asBoolean(false)));
            if (d != null) {
                diffs.add(d);
            }
        }
        if (expect.has("events")) {
            List<String> want = new ArrayList<>();
            expect.get("events").forEach(e -> want.add(e.asText()));
            List<String> got = new ArrayList<>(world.eventReasons());
            Collections.sort(want);
            Collections.sort(got);
            if (!want.equals(got)) {
                diffs.add("events: expected " + want + ", got " + got);
            }
        }
        expect.path("eventMessages").fields().forEachRemaining(e -> {
            List<String> messages = world.eventMessages(e.getKey());
            if (!messages.contains(e.getValue().asText())) {
                diffs.add("eventMessages." + e.getKey() + ": expected " + e.getValue() + ", got " + messages);
            }
        });
        if (expect.has("statusWritten") && expect.get("statusWritten").asBoolean() != !world.statusWrites.isEmpty()) {
            diffs.add("status written: expected " + expect.get("statusWritten").asBoolean() + ", got " + !world.statusWrites.isEmpty());
        }
        diffs.addAll(TraceConsistency.ofSync(outcome, world.scaleWrites, world.pods.size()));
        if (!diffs.isEmpty() && outcome.errorMessage() != null) {
            diffs.add("(sync error: " + outcome.errorMessage() + ")");
        }
        return diffs.isEmpty() ? null : String.join("; ", diffs);
    }

    /** Turns the case's "...SecondsAgo" keys of the HPA status into times. */
    private static JsonNode withAbsoluteTimes(JsonNode hpa, long now) {
        JsonNode status = hpa.path("status");
        if (status instanceof ObjectNode s) {
            if (s.has(CaseFormat.LAST_SCALE_TIME_AGO)) {
                s.put("lastScaleTime", time(now, s.remove(CaseFormat.LAST_SCALE_TIME_AGO).asLong()));
            }
            for (JsonNode cond : s.path("conditions")) {
                if (cond instanceof ObjectNode o && o.has(CaseFormat.LAST_TRANSITION_TIME_AGO)) {
                    o.put("lastTransitionTime", time(now, o.remove(CaseFormat.LAST_TRANSITION_TIME_AGO).asLong()));
                }
            }
        }
        return hpa;
    }

    private static String time(long now, long secondsAgo) {
        return Instant.ofEpochMilli(now - secondsAgo * 1000L).toString();
    }
}
