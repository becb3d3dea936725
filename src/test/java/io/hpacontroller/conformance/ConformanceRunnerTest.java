package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** The runner cannot pass a case that checks nothing, or checks something other than it says. */
class ConformanceRunnerTest {

    private static final Path CALC = Path.of("src/test/resources/conformance/calc/resource-cpu-scale-up.json");
    private static final Path NORMALIZE = Path.of("src/test/resources/conformance/normalize/normalize-legacy-stabilize-stabilize.json");
    private static final Path RECONCILE = Path.of("src/test/resources/conformance/reconcile/scale-down-stabilize-initial-size.json");

    private final KubernetesSerialization json = new KubernetesSerialization();
    private final ConformanceRunner runner = new ConformanceRunner();

    @TempDir
    Path dir;

    /** The vendored case, changed by {@code edit}, run. */
    private ConformanceRunner.Result run(Path original, Consumer<ObjectNode> edit) throws IOException {
        ObjectNode c = (ObjectNode) json.unmarshal(Files.readString(original), JsonNode.class);
        edit.accept(c);
        Path file = dir.resolve("case.json");
        Files.writeString(file, json.asJson(c));
        return runner.run(file);
    }

    private static ObjectNode at(ObjectNode c, String... path) {
        JsonNode n = c;
        for (String p : path) {
            n = p.matches("\\d+") ? n.get(Integer.parseInt(p)) : n.get(p);
        }
        return (ObjectNode) n;
    }

    @Test
    void theUnchangedCasesPass() throws IOException {
        for (Path p : new Path[]{CALC, NORMALIZE, RECONCILE}) {
            assertThat(run(p, c -> { }).passed()).as(p.toString()).isTrue();
        }
    }

    @Test
    void anEmptyExpectationIsAnError() throws IOException {
        assertThat(run(CALC, c -> c.putObject("expect")).detail())
                .isEqualTo("malformed case: expect: expects nothing: a calc case needs \"replicas\" (the proposal) or \"error\": true");
        assertThat(run(NORMALIZE, c -> c.putObject("expect")).detail()).isEqualTo("malformed case: expect.replicas: required");
        assertThat(run(RECONCILE, c -> c.putObject("expect")).detail()).isEqualTo("malformed case: expect.scaledTo: required");
        assertThat(run(RECONCILE, c -> at(c, "expect").putObject("status")).detail())
                .isEqualTo("malformed case: expect.status: expects nothing (an empty object)");
        assertThat(run(CALC, c -> at(c, "expect").put("error", true)).detail())
                .startsWith("malformed case: expect: expects the computation to fail (error: true) and also a result");
    }

    @Test
    void aMissingOrMisspelledExpectIsAnError() throws IOException {
        assertThat(run(CALC, c -> c.remove("expect")).detail()).isEqualTo("malformed case: expect: required");
        assertThat(run(CALC, c -> c.set("expected", c.remove("expect"))).detail()).startsWith("malformed case: expected: unknown key (known here: ");
    }

    @Test
    void aMisspelledKeyIsAnErrorAtEveryLevel() throws IOException {
        assertThat(run(CALC, c -> at(c, "expect").set("replica", at(c, "expect").remove("replicas"))).detail())
                .startsWith("malformed case: expect.replica: unknown key (known here: error, exactQuantities, replicas, utilization, value)");
        assertThat(run(CALC, c -> at(c, "pods", "0").set("redy", at(c, "pods", "0").remove("ready"))).detail())
                .startsWith("malformed case: pods[0].redy: unknown key");
        assertThat(run(CALC, c -> at(c, "config").put("tolerence", 0.2)).detail()).startsWith("malformed case: config.tolerence: unknown key");
        assertThat(run(CALC, c -> at(c, "metric", "resource", "target").put("averageUtilisation", 30)).detail())
                .isEqualTo("malformed case: metric.resource.target.averageUtilisation: unknown field of MetricSpec");
        assertThat(run(NORMALIZE, c -> at(c, "history").set("recommendation", at(c, "history").remove("recommendations"))).detail())
                .startsWith("malformed case: history.recommendation: unknown key");
        assertThat(run(NORMALIZE, c -> at(c, "history", "recommendations", "0").put("secondAgo", 3)).detail())
                .startsWith("malformed case: history.recommendations[0].secondAgo: unknown key");
        assertThat(run(NORMALIZE, c -> at(c, "expect", "condition").put("resaon", "x")).detail())
                .startsWith("malformed case: expect.condition.resaon: unknown key");
        assertThat(run(RECONCILE, c -> at(c, "scale").put("selecter", "app=x")).detail()).startsWith("malformed case: scale.selecter: unknown key");
        assertThat(run(RECONCILE, c -> at(c, "resourceMetrics", "test-pod-0").put("timestamp", 0)).detail())
                .startsWith("malformed case: resourceMetrics.test-pod-0.timestamp: unknown key");
        assertThat(run(RECONCILE, c -> at(c, "hpa", "spec").put("maxReplica", 6)).detail())
                .isEqualTo("malformed case: hpa.spec.maxReplica: unknown field of HorizontalPodAutoscaler");
        assertThat(run(RECONCILE, c -> at(c, "expect", "status").put("desiredReplica", 5)).detail())
                .isEqualTo("malformed case: expect.status.desiredReplica: unknown field of HorizontalPodAutoscalerStatus");
        assertThat(run(RECONCILE, c -> at(c, "expect").put("event", "x")).detail()).startsWith("malformed case: expect.event: unknown key");
    }

    @Test
    void valuesKeepTheirJsonTypes() throws IOException {
        assertThat(run(CALC, c -> at(c, "expect").put("replicas", "5")).detail())
                .isEqualTo("malformed case: expect.replicas: expected an integer, got \"5\"");
        assertThat(run(CALC, c -> c.put("specReplicas", 3.5)).detail()).isEqualTo("malformed case: specReplicas: expected an integer, got 3.5");
        assertThat(run(CALC, c -> at(c, "expect").put("value", 0.5)).detail())
                .startsWith("malformed case: expect.value: expected a quantity string");
        assertThat(run(NORMALIZE, c -> at(c, "expect", "condition").put("status", true)).detail())
                .isEqualTo("malformed case: expect.condition.status: expected one of True, False, got true");
        assertThat(run(RECONCILE, c -> at(c, "expect", "status").put("desiredReplicas", "5")).detail())
                .isEqualTo("malformed case: expect.status.desiredReplicas: expected an integer, got \"5\"");
        assertThat(run(RECONCILE, c -> at(c, "hpa", "spec").put("maxReplicas", "6")).detail())
                .isEqualTo("malformed case: hpa.spec.maxReplicas: expected an integer, got \"6\"");
        assertThat(run(RECONCILE, c -> at(c, "expect").put("statusWritten", "true")).detail())
                .isEqualTo("malformed case: expect.statusWritten: expected true or false, got \"true\"");
        assertThat(run(RECONCILE, c -> ((ArrayNode) at(c, "expect").get("events")).add(1)).detail())
                .isEqualTo("malformed case: expect.events[0]: expected a string, got 1");
    }

    @Test
    void quantitiesCompareByValueUnlessTheCaseAsksForTheExactText() throws IOException {
        // the vendored case expects "280m"; the core reports "280m"
        assertThat(run(RECONCILE, c -> at(c, "expect", "status", "currentMetrics", "0", "resource", "current").put("averageValue", "0.28")).passed())
                .isTrue();
        ConformanceRunner.Result exact = run(RECONCILE, c -> {
            at(c, "expect").put("exactQuantities", true);
            at(c, "expect", "status", "currentMetrics", "0", "resource", "current").put("averageValue", "0.28");
        });
        assertThat(exact.detail()).startsWith("status.currentMetrics[0].resource.current.averageValue: expected \"0.28\", got \"280m\"");
        assertThat(run(RECONCILE, c -> at(c, "expect").put("exactQuantities", true)).passed()).isTrue();
    }

    @Test
    void eventMessagesAreCheckedWhenGiven() throws IOException {
        ConformanceRunner.Result r = run(RECONCILE, c -> at(c, "expect").putObject("eventMessages").put("SuccessfulRescale", "New size: 4"));
        assertThat(r.detail()).startsWith("eventMessages.SuccessfulRescale: expected \"New size: 4\", got []");
    }

    /** SCHEMA.md: a missing history.recommendations means "never seen": the controller's first-sync rule applies. */
    @Test
    void aNormalizeCaseWithoutRecommendationsIsAFirstSync() throws IOException {
        Consumer<ObjectNode> firstSync = c -> {
            at(c, "history").remove("recommendations");
            at(c, "expect").put("replicas", 10);  // the current count, recorded "now", holds the scale-down
        };
        assertThat(run(NORMALIZE, firstSync).passed()).isTrue();
        ConformanceRunner.Result seenBefore = run(NORMALIZE, c -> {
            at(c, "history").putArray("recommendations");
            at(c, "expect").put("replicas", 10);
        });
        assertThat(seenBefore.detail()).isEqualTo("replicas: expected 10, got 3");
    }
}
