package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.forecast.LoadHistory;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.LearnedLoad;
import io.hpacontroller.core.schedule.SchedulesAnnotation;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.PredictionTrace.PredictedMetric;
import io.hpacontroller.core.trace.PredictionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scheduled rules raise the effective minReplicas; the prediction proposes through the calculator's rule and
 * only ever raises the recommendation (max rule), before min/max, stabilization and policies.
 */
class ScheduledAndPredictiveTest {

    /** A Monday, 12:00 UTC. */
    private static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
    private static final long NOW_MILLIS = NOW.toEpochMilli();
    private static final HpaKey KEY = HpaKey.parse("default/web");

    private final FakeCluster cluster = new FakeCluster();
    private final HistoryStore histories = new HistoryStore();

    /** Three pods at 100 % of their request against a 50 % target: upstream proposes 6. */
    @BeforeEach
    void threePodsAtTwiceTheTarget() {
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        podsAt(1000);
    }

    private void podsAt(long milli) {
        cluster.pods = Pods.ready(3, 1000, NOW_MILLIS);
        cluster.podUsage = Pods.cpuUsage(NOW_MILLIS, milli, milli, milli);
    }

    private ReconcileOutcome sync(HorizontalPodAutoscaler hpa, Instant at) {
        ReconcileOutcome o = cluster.reconciler(ControllerConfig.defaults(), histories, Clock.fixed(at, ZoneOffset.UTC)).reconcile(hpa);
        hpa.setStatus(o.status());
        return o;
    }

    private static HorizontalPodAutoscaler annotated(int min, int max, String... nameValue) {
        HorizontalPodAutoscaler hpa = Specs.hpa(min, max, Specs.cpuUtilization(50));
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            a.put(nameValue[i], nameValue[i + 1]);
        }
        hpa.getMetadata().setAnnotations(a);
        return hpa;
    }

    // ---- schedules ----

    @Test
    void anActiveRuleRaisesMinReplicasAndTheTraceNamesIt() {
        HorizontalPodAutoscaler hpa = annotated(1, 20, SchedulesAnnotation.NAME,
                "[{cron: '0 11 * * MON-FRI', duration: 2h, timezone: UTC, minReplicas: 8}]");
        ReconcileOutcome o = sync(hpa, NOW);

        assertThat(cluster.scaleWrites).containsExactly(8);
        assertThat(o.trace().minReplicas()).isEqualTo(8);
        assertThat(o.trace().rescaleRule()).isEqualTo(DecisionTrace.BELOW_MIN_REPLICAS);
        assertThat(o.trace().schedule().activeRule()).isEqualTo("schedules[0] \"0 11 * * MON-FRI\" (UTC) active since 2026-03-02T11:00:00Z until 2026-03-02T13:00:00Z: minReplicas 8");
        assertThat(o.trace().schedule().specMinReplicas()).isEqualTo(1);
        assertThat(o.rescaleReason()).contains("raised by schedules[0]");
        assertThat(DecisionSummary.of(o.trace())).contains("minReplicas 8 (spec: 1) from schedules[0]");
    }

    @Test
    void outsideEveryRuleTheSpecsMinReplicasAndTheMetricsDecide() {
        HorizontalPodAutoscaler hpa = annotated(1, 20, SchedulesAnnotation.NAME,
                "[{cron: '0 11 * * MON-FRI', duration: 2h, timezone: UTC, minReplicas: 8}]");
        ReconcileOutcome o = sync(hpa, NOW.plusSeconds(3 * 3600));

        assertThat(cluster.scaleWrites).containsExactly(6);
        assertThat(o.trace().minReplicas()).isEqualTo(1);
        assertThat(o.trace().schedule().activeRule()).isNull();
        assertThat(o.trace().schedule().raised()).isFalse();
    }

    @Test
    void overlappingRulesTheHighestWinsAndMaxReplicasCapsIt() {
        String rules = "[{cron: '0 11 * * *', duration: 2h, timezone: UTC, minReplicas: 7},"
                + " {cron: '30 12 * * *', duration: 1h, timezone: Europe/Berlin, minReplicas: 12},"
                + " {cron: '0 10 * * *', duration: 3h, timezone: UTC, minReplicas: 9}]";
        ReconcileOutcome o = sync(annotated(2, 10, SchedulesAnnotation.NAME, rules), NOW);
        // 12:30 in Berlin is 11:30 UTC: the second rule is active (12), capped by maxReplicas 10
        assertThat(o.trace().schedule().activeRule()).startsWith("schedules[1]");
        assertThat(o.trace().minReplicas()).isEqualTo(10);
        assertThat(cluster.scaleWrites).containsExactly(10);
    }

    @Test
    void aRuleBelowTheMetricsChangesNothing() {
        ReconcileOutcome o = sync(annotated(1, 20, SchedulesAnnotation.NAME,
                "[{cron: '0 11 * * *', duration: 2h, timezone: UTC, minReplicas: 2}]"), NOW);
        assertThat(cluster.scaleWrites).containsExactly(6);
        assertThat(o.trace().schedule().activeRule()).startsWith("schedules[0]");
        assertThat(o.trace().minReplicas()).isEqualTo(2);
        assertThat(o.trace().normalization().constraintsApplied()).isEmpty();
    }

    // ---- prediction ----

    private static final String LINEAR = "{model: Linear, horizon: 2m, history: 10m}";

    /** The learned load (percent-pods of cpu) of the last ten minutes, flat at {@code load}. */
    private void learned(double load) {
        PredictSetting setting = ((Parsed.Valid<PredictSetting>) PredictAnnotation.parse(LINEAR)).value();
        LoadHistory h = setting.newHistory();
        for (int m = 10; m >= 1; m--) {
            h.record("Resource/cpu", NOW.minusSeconds(60L * m), load);
        }
        histories.learnedLoad(KEY).set(h.encode());
    }

    @Test
    void aPredictionAboveTheMetricsReplacesTheRecommendationBeforeTheLimits() {
        learned(350);      // 350 % of a pod's request: ceil(350 / 50) = 7 replicas
        ReconcileOutcome o = sync(annotated(1, 20, PredictAnnotation.NAME, LINEAR), NOW);

        PredictionTrace p = o.trace().prediction();
        assertThat(p.setting()).isEqualTo("Linear horizon 2m0s, history 10m0s");
        assertThat(p.metrics()).singleElement().satisfies(m -> {
            assertThat(m.metric()).isEqualTo("Resource/cpu");
            assertThat(m.load()).isCloseTo(350, org.assertj.core.data.Offset.offset(1.0));
            assertThat(m.replicas()).isEqualTo(7);
            assertThat(m.at()).isEqualTo(NOW.plusSeconds(120).toEpochMilli());
        });
        assertThat(p.raised()).isTrue();
        assertThat(o.trace().rawDesiredReplicas()).as("the metrics' own proposal is kept").isEqualTo(6);
        assertThat(o.trace().recommendation()).isEqualTo(7);
        assertThat(o.trace().normalization().recommendation()).isEqualTo(7);
        // then the limits as always: upstream's scale-up limit without behavior is max(2 x 3, 4) = 6
        assertThat(o.trace().normalization().rateLimit().bound()).isTrue();
        assertThat(cluster.scaleWrites).containsExactly(6);
        assertThat(o.rescaleReason()).isEqualTo("the load predicted 2m0s ahead for Resource/cpu above target");
        assertThat(io.hpacontroller.conformance.TraceConsistency.ofSync(o, cluster.scaleWrites, 3)).isEmpty();
    }

    @Test
    void aPredictionBelowTheMetricsChangesNothing() {
        learned(100);      // 2 replicas worth
        ReconcileOutcome o = sync(annotated(1, 20, PredictAnnotation.NAME, LINEAR), NOW);

        assertThat(o.trace().prediction().replicas()).isEqualTo(2);
        assertThat(o.trace().prediction().raised()).isFalse();
        assertThat(cluster.scaleWrites).containsExactly(6);
        assertThat(o.rescaleReason()).isEqualTo("cpu resource utilization (percentage of request) above target");
    }

    @Test
    void aLowPredictionNeverForcesAScaleDown() {
        podsAt(500);       // 50 % of the request: exactly the target, no change
        learned(50);       // 1 replica worth
        ReconcileOutcome o = sync(annotated(1, 20, PredictAnnotation.NAME, LINEAR), NOW);

        assertThat(o.trace().prediction().replicas()).isEqualTo(1);
        assertThat(o.trace().desiredReplicas()).isEqualTo(3);
        assertThat(cluster.scaleWrites).isEmpty();
    }

    @Test
    void aForecastWorthMoreThanMaxReplicasIsDiscardedWithATraceEntry() {
        learned(5000);     // 100 replicas worth, maxReplicas 20
        ReconcileOutcome o = sync(annotated(1, 20, PredictAnnotation.NAME, LINEAR), NOW);

        PredictedMetric m = o.trace().prediction().metrics().get(0);
        assertThat(m.discarded()).isTrue();
        assertThat(m.replicas()).isEqualTo(-1);
        assertThat(m.message()).endsWith("the forecast is worth 100 replicas, more than maxReplicas 20; discarded");
        assertThat(cluster.scaleWrites).as("as reactive").containsExactly(6);
        assertThat(DecisionSummary.of(o.trace())).contains("forecast of Resource/cpu discarded");
    }

    @Test
    void withoutEnoughHistoryThereIsNoProposalAndTheHpaIsReactive() {
        ReconcileOutcome o = sync(annotated(1, 20, PredictAnnotation.NAME, LINEAR), NOW);

        PredictedMetric m = o.trace().prediction().metrics().get(0);
        assertThat(m.replicas()).isEqualTo(-1);
        assertThat(m.discarded()).isFalse();
        assertThat(m.message()).isEqualTo("no load recorded yet");
        assertThat(cluster.scaleWrites).containsExactly(6);
    }

    @Test
    void eachSyncIsLearnedOneHighestPointAMinuteKeptInTheHistoryAndForgottenWithoutTheAnnotation() {
        cluster.scale = new ScaleTarget(6, 6, "app=web", "1");
        HorizontalPodAutoscaler hpa = annotated(1, 20, PredictAnnotation.NAME, LINEAR);
        long[] usage = {250, 500, 400, 250};       // per pod, 3 ready pods: 75, 150, 120, 75 percent-pods
        for (int i = 0; i < usage.length; i++) {
            Instant at = NOW.plusSeconds(15L * i);
            cluster.pods = Pods.ready(3, 1000, at.toEpochMilli());
            cluster.podUsage = Pods.cpuUsage(at.toEpochMilli(), usage[i], usage[i], usage[i]);
            sync(hpa, at);
        }
        sync(hpa, NOW.plusSeconds(60));          // the first sync of the next minute writes the stored form
        LearnedLoad h = histories.learnedLoad(KEY);
        assertThat(h.encoded()).isNotNull();
        PredictSetting setting = ((Parsed.Valid<PredictSetting>) PredictAnnotation.parse(LINEAR)).value();
        LoadHistory stored = ((Parsed.Valid<LoadHistory>) LoadHistory.decode(h.encoded(), setting.history())).value();
        assertThat(stored.series("Resource/cpu").value(0)).isCloseTo(150, org.assertj.core.data.Offset.offset(0.5));

        hpa.getMetadata().setAnnotations(Map.of());
        ReconcileOutcome o = sync(hpa, NOW.plusSeconds(75));
        assertThat(h.encoded()).isNull();
        assertThat(o.trace().prediction().active()).isFalse();
    }

    @Test
    void aLearnedLoadThatCannotBeReadStartsAgainAndSaysSo() {
        histories.learnedLoad(KEY).set("not base64 at all!");
        ReconcileOutcome o = sync(annotated(1, 20, PredictAnnotation.NAME, LINEAR), NOW);
        assertThat(o.trace().prediction().note()).startsWith("stored load history is not base64").endsWith("; learning starts again");
        assertThat(cluster.scaleWrites).containsExactly(6);
    }

    @Test
    void aHistoryTooLongForTheBoundIsAnInvalidAnnotation() {
        HorizontalPodAutoscaler hpa = Specs.hpa(1, 20, Specs.cpuUtilization(50), Specs.resourceAverage("memory", "100Mi"),
                Specs.podsAverage("rps", "10"));
        hpa.getMetadata().setAnnotations(Map.of(PredictAnnotation.NAME, "{model: HoltWinters, season: 24h, horizon: 2m, history: 14d}"));
        ReconcileOutcome o = sync(hpa, NOW);
        assertThat(o.trace().errorReason()).isEqualTo(Reconciler.INVALID_ANNOTATION);
        assertThat(o.trace().errorMessage()).startsWith(PredictAnnotation.NAME + ": history 336h0m0s for 3 metrics is more than the 64 KiB");
        assertThat(cluster.scaleWrites).isEmpty();
    }

    @Test
    void theScheduleAndThePredictionGoThroughTheDecisionsJson() throws Exception {
        learned(350);
        HorizontalPodAutoscaler hpa = annotated(1, 20, PredictAnnotation.NAME, LINEAR, SchedulesAnnotation.NAME,
                "[{cron: '0 11 * * *', duration: 2h, timezone: UTC, minReplicas: 2}]");
        cluster.scale = new ScaleTarget(4, 4, "app=web", "1");
        DecisionTrace t = sync(hpa, NOW).trace();
        assertThat(t.prediction().raised()).isTrue();
        DecisionTrace read = io.hpacontroller.ops.DecisionsJson.read(io.hpacontroller.ops.DecisionsJson.write(t), DecisionTrace.class);
        assertThat(read.schedule()).isEqualTo(t.schedule());
        assertThat(read.prediction()).isEqualTo(t.prediction());
        assertThat(read).isEqualTo(t);
    }
}
