package io.hpacontroller.core.controls;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hpacontroller.core.Parsed;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class MirrorControlFieldsTest {

    private static HorizontalPodAutoscaler hpa(String apiVersion, String annotations, String specExtra, String behaviorExtra) {
        return Serialization.unmarshal("""
                apiVersion: %s
                kind: HorizontalPodAutoscaler
                metadata:
                  name: web
                  namespace: shop
                  annotations: {%s}
                spec:
                  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
                  maxReplicas: 10
                  %s
                  behavior:
                    scaleDown: {stabilizationWindowSeconds: 60}
                    %s
                """.formatted(apiVersion, annotations, specExtra, behaviorExtra), HorizontalPodAutoscaler.class);
    }

    private static HpaControls valid(HorizontalPodAutoscaler hpa) {
        Parsed<HpaControls> p = HpaControls.of(hpa);
        assertThat(p).isInstanceOf(Parsed.Valid.class);
        return ((Parsed.Valid<HpaControls>) p).value();
    }

    private static String invalid(HorizontalPodAutoscaler hpa) {
        Parsed<HpaControls> p = HpaControls.of(hpa);
        assertThat(p).isInstanceOf(Parsed.Invalid.class);
        return ((Parsed.Invalid<HpaControls>) p).message();
    }

    private static final String MIRROR = MirrorControlFields.GROUP + "/v1";

    @Test
    void theCadenceAndKep6003sSyncPeriodFeedTheSameModelAsTheAnnotations() {
        HpaControls fields = valid(hpa(MIRROR, "", "cadence: Fresh\n  syncPeriodSeconds: 5", ""));
        HpaControls annotations = valid(hpa("autoscaling/v2", """
                "autoscaling.hpa-controller.io/cadence": Fresh, "autoscaling.hpa-controller.io/sync-period": 5s""", "", ""));
        assertThat(fields).isEqualTo(annotations);
        assertThat(fields.cadence()).isEqualTo(SyncCadence.FRESH);
        assertThat(fields.cadenceOr(SyncCadence.SPREAD)).isEqualTo(SyncCadence.FRESH);
        assertThat(HpaControls.NONE.cadenceOr(SyncCadence.SPREAD)).isEqualTo(SyncCadence.SPREAD);
        assertThat(valid(hpa(MIRROR, "", "syncPeriodSeconds: 5", "syncPeriodSeconds: 5")).syncPeriod())
                .as("both spellings with one value").isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void bothSpellingsOfTheSyncPeriodWithDifferentValuesAreAnError() {
        assertThat(invalid(hpa(MIRROR, "", "syncPeriodSeconds: 5", "syncPeriodSeconds: 30")))
                .isEqualTo("spec.syncPeriodSeconds: 5 differs from spec.behavior.syncPeriodSeconds: 30 (the same control spelled twice:"
                        + " keep spec.syncPeriodSeconds)");
        assertThat(invalid(hpa(MIRROR, "", "syncPeriodSeconds: 0", ""))).startsWith("spec.syncPeriodSeconds: must be a whole number of seconds");
        assertThat(invalid(hpa(MIRROR, "", "cadence: fresh", ""))).isEqualTo("spec.cadence: must be one of Fresh, Spread, got \"fresh\"");
        assertThat(invalid(hpa(MIRROR, "\"autoscaling.hpa-controller.io/cadence\": Spread", "cadence: Fresh", "")))
                .startsWith("spec.cadence: also given by the annotation autoscaling.hpa-controller.io/cadence");
        assertThat(invalid(hpa("autoscaling/v2", "\"autoscaling.hpa-controller.io/cadence\": Often", "", "")))
                .isEqualTo("autoscaling.hpa-controller.io/cadence: must be one of Fresh, Spread, got \"Often\"");
    }

    @Test
    void everyFieldFeedsTheSameModelAsTheAnnotations() {
        HpaControls fields = valid(hpa(MIRROR, "", "mode: Preview\n  fallback: {replicas: 6, failureDurationSeconds: 120}",
                "syncPeriodSeconds: 3\n    cpuInitializationPeriodSeconds: 120\n    initialReadinessDelaySeconds: 60"));
        HpaControls annotations = valid(hpa("autoscaling/v2", """
                "autoscaling.hpa-controller.io/sync-period": 3s, "autoscaling.hpa-controller.io/mode": Preview,
                "autoscaling.hpa-controller.io/fallback-replicas": "6", "autoscaling.hpa-controller.io/fallback-after": 2m,
                "autoscaling.hpa-controller.io/cpu-initialization-period": 2m, "autoscaling.hpa-controller.io/initial-readiness-delay": 60s""",
                "", ""));
        assertThat(fields).isEqualTo(annotations);
        assertThat(fields.fallback()).isEqualTo(new Fallback(6, Duration.ofMinutes(2)));
        assertThat(fields.syncPeriod()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void withoutFieldsAMirrorHpaHasNoControlAndAnAutoscalingV2HpaIgnoresThem() {
        assertThat(valid(hpa(MIRROR, "", "", ""))).isSameAs(HpaControls.NONE);
        assertThat(valid(hpa(MIRROR, "", "mode: Auto", ""))).isSameAs(HpaControls.NONE);
        // autoscaling/v2 has no such fields (kube-apiserver prunes them): only its annotations count
        assertThat(valid(hpa("autoscaling/v2", "", "mode: Suspended", "syncPeriodSeconds: 0"))).isSameAs(HpaControls.NONE);
    }

    @Test
    void schedulesAndPredictFieldsFeedTheSameModelAsTheAnnotations() {
        HpaControls fields = valid(hpa(MIRROR, "", """
                schedules: [{cron: "0 8 * * MON-FRI", duration: 10h, timezone: Europe/Berlin, minReplicas: 6},
                    {cron: "0 22 * * *", duration: 4h, timezone: UTC, minReplicas: 2}]
                  predict: {model: HoltWinters, season: 24h, horizon: 5m, history: 3d}""", ""));
        HpaControls annotations = valid(hpa("autoscaling/v2", """
                "autoscaling.hpa-controller.io/schedules": "[{cron: '0 8 * * MON-FRI', duration: 10h, timezone: Europe/Berlin, minReplicas: 6},
                  {cron: '0 22 * * *', duration: 4h, timezone: UTC, minReplicas: 2}]",
                "autoscaling.hpa-controller.io/predict": "{model: HoltWinters, season: 24h, horizon: 5m, history: 3d}\"""", "", ""));
        assertThat(fields).isEqualTo(annotations);
        assertThat(fields.schedules().rules()).hasSize(2);
        assertThat(fields.schedules().rules().get(0).minReplicas()).isEqualTo(6);
        assertThat(fields.predict().horizon()).isEqualTo(Duration.ofMinutes(5));
        assertThat(valid(hpa(MIRROR, "", "predict: {model: Linear, horizon: 2m}", "")))
                .isEqualTo(valid(hpa("autoscaling/v2", "\"autoscaling.hpa-controller.io/predict\": \"{model: Linear, horizon: 2m}\"", "", "")));
    }

    @Test
    void invalidSchedulesAndPredictFieldsNameTheFieldPath() {
        assertThat(invalid(hpa(MIRROR, "", "schedules: [{cron: \"0 8 * * *\", duration: 0s, timezone: UTC, minReplicas: 6}]", "")))
                .startsWith("spec.schedules[0].duration: ");
        assertThat(invalid(hpa(MIRROR, "", "predict: {model: Prophet, horizon: 2m}", "")))
                .startsWith("spec.predict.model: ");
        assertThat(invalid(hpa(MIRROR, "", "predict: {model: Linear, horizon: 2m, seasn: 24h}", "")))
                .startsWith("spec.predict");
    }

    @Test
    void schedulesOrPredictGivenAsFieldAndAnnotationIsAnError() {
        assertThat(invalid(hpa(MIRROR, "\"autoscaling.hpa-controller.io/predict\": \"{model: Linear, horizon: 2m}\"",
                "predict: {model: Linear, horizon: 2m}", "")))
                .isEqualTo("spec.predict: also given by the annotation autoscaling.hpa-controller.io/predict (set each control in one place: the field)");
        assertThat(invalid(hpa(MIRROR, "\"autoscaling.hpa-controller.io/schedules\": \"[{cron: '0 8 * * *', duration: 1h, timezone: UTC, minReplicas: 3}]\"",
                "schedules: [{cron: \"0 8 * * *\", duration: 1h, timezone: UTC, minReplicas: 3}]", "")))
                .isEqualTo("spec.schedules: also given by the annotation autoscaling.hpa-controller.io/schedules (set each control in one place: the field)");
    }

    @Test
    void theAnnotationsStillCarryWhatNoFieldGives() {
        HpaControls c = valid(hpa(MIRROR, "\"autoscaling.hpa-controller.io/predict\": \"{model: Linear, horizon: 2m}\"", "mode: Suspended", ""));
        assertThat(c.mode()).isEqualTo(Mode.SUSPENDED);
        assertThat(c.predict()).isNotNull();
    }

    @Test
    void outOfRangeOrMalformedFieldsNameTheFieldAndTheRange() {
        assertThat(invalid(hpa(MIRROR, "", "", "syncPeriodSeconds: 0")))
                .isEqualTo("spec.behavior.syncPeriodSeconds: must be a whole number of seconds from 1 to 3600, got 0");
        assertThat(invalid(hpa(MIRROR, "", "", "initialReadinessDelaySeconds: \"60s\"")))
                .isEqualTo("spec.behavior.initialReadinessDelaySeconds: must be a whole number of seconds from 0 to 3600, got \"60s\"");
        assertThat(invalid(hpa(MIRROR, "", "mode: Suspnded", ""))).isEqualTo("spec.mode: must be one of Auto, Preview, Suspended, got \"Suspnded\"");
        assertThat(invalid(hpa(MIRROR, "", "fallback: {replicas: -1}", "")))
                .contains("spec.fallback.replicas: must be a whole number of at least 1, got -1")
                .contains("spec.fallback.failureDurationSeconds: must be a whole number of seconds from 1 to 86400, got nothing");
        assertThat(invalid(hpa(MIRROR, "", "fallback: {replicas: 2, failureDurationSeconds: 60, replica: 3}", "")))
                .isEqualTo("spec.fallback.replica: unknown field (known: replicas, failureDurationSeconds)");
    }

    @Test
    void aControlGivenAsFieldAndAnnotationIsAnError() {
        assertThat(invalid(hpa(MIRROR, "\"autoscaling.hpa-controller.io/mode\": Preview", "mode: Preview", "")))
                .isEqualTo("spec.mode: also given by the annotation autoscaling.hpa-controller.io/mode (set each control in one place: the field)");
    }

    @Test
    void anInvalidAnnotationOfAMirrorHpaIsReportedWithTheFields() {
        assertThat(invalid(hpa(MIRROR, "\"autoscaling.hpa-controller.io/sync-perod\": 3s", "mode: Preview", "")))
                .startsWith("autoscaling.hpa-controller.io/sync-perod: unknown annotation");
    }
}
