package io.hpacontroller.core.controls;

import io.hpacontroller.core.Parsed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ControlAnnotationsTest {

    private static final String P = ControlAnnotations.PREFIX;

    private static HpaControls valid(Map<String, String> annotations) {
        Parsed<HpaControls> p = ControlAnnotations.parse(annotations);
        assertThat(p).isInstanceOf(Parsed.Valid.class);
        return ((Parsed.Valid<HpaControls>) p).value();
    }

    private static String invalid(Map<String, String> annotations) {
        Parsed<HpaControls> p = ControlAnnotations.parse(annotations);
        assertThat(p).isInstanceOf(Parsed.Invalid.class);
        return ((Parsed.Invalid<HpaControls>) p).message();
    }

    @Test
    void withoutAnnotationsUnderThePrefixThereIsNoControl() {
        assertThat(valid(null)).isSameAs(HpaControls.NONE);
        assertThat(valid(Map.of("kubectl.kubernetes.io/last-applied-configuration", "{}", "example.com/sync-period", "0")))
                .isSameAs(HpaControls.NONE);
        assertThat(HpaControls.NONE.isNone()).isTrue();
    }

    @Test
    void everyControlIsRead() {
        HpaControls c = valid(Map.of(P + "sync-period", "3s", P + "fallback-replicas", "6", P + "fallback-after", "2m",
                P + "mode", "Preview", P + "cpu-initialization-period", "2m", P + "initial-readiness-delay", " 60s ",
                P + "schedules", "[{cron: \"0 8 * * MON-FRI\", duration: 10h, timezone: UTC, minReplicas: 6}]",
                P + "predict", "{model: Linear, horizon: 2m}"));
        assertThat(c.syncPeriod()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.fallback()).isEqualTo(new Fallback(6, Duration.ofMinutes(2)));
        assertThat(c.mode()).isEqualTo(Mode.PREVIEW);
        assertThat(c.cpuInitializationPeriod()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.initialReadinessDelay()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.schedules().rules()).hasSize(1);
        assertThat(c.predict()).isNotNull();
        assertThat(c.ownWarmUp()).isTrue();
        assertThat(c.syncPeriodOr(Duration.ofSeconds(15))).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void theRangesIncludeTheirEnds() {
        assertThat(valid(Map.of(P + "sync-period", "1s")).syncPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(valid(Map.of(P + "sync-period", "1h")).syncPeriod()).isEqualTo(Duration.ofHours(1));
        assertThat(valid(Map.of(P + "cpu-initialization-period", "0")).cpuInitializationPeriod()).isZero();
        assertThat(valid(Map.of(P + "mode", "Auto")).isNone()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "sync-period|0|autoscaling.hpa-controller.io/sync-period: must be a duration from 1s to 1h (e.g. 30s), got \"0\"",
            "sync-period|61m|autoscaling.hpa-controller.io/sync-period: must be a duration from 1s to 1h (e.g. 30s), got \"61m\"",
            "sync-period|15|autoscaling.hpa-controller.io/sync-period: must be a duration from 1s to 1h (e.g. 30s), got \"15\"",
            "mode|Suspnded|autoscaling.hpa-controller.io/mode: must be one of Auto, Preview, Suspended, got \"Suspnded\"",
            "mode|suspended|autoscaling.hpa-controller.io/mode: must be one of Auto, Preview, Suspended, got \"suspended\"",
            "cpu-initialization-period|-1s|autoscaling.hpa-controller.io/cpu-initialization-period: must be a duration from 0s to 1h (e.g. 2m), got \"-1s\"",
            "initial-readiness-delay|2h|autoscaling.hpa-controller.io/initial-readiness-delay: must be a duration from 0s to 1h (e.g. 60s), got \"2h\"",
    })
    void aMalformedOrOutOfRangeValueNamesTheAnnotationAndWhatItAccepts(String name, String value, String message) {
        assertThat(invalid(Map.of(P + name, value))).isEqualTo(message);
    }

    @ParameterizedTest
    @CsvSource({"-1", "0", "six", "1.5", "99999999999"})
    void fallbackReplicasIsAWholeNumberOfAtLeastOne(String value) {
        assertThat(invalid(Map.of(P + "fallback-replicas", value, P + "fallback-after", "2m")))
                .isEqualTo("autoscaling.hpa-controller.io/fallback-replicas: must be a whole number of at least 1, got \"" + value + "\"");
    }

    @Test
    void aFallbackNeedsBothHalves() {
        assertThat(invalid(Map.of(P + "fallback-replicas", "6"))).isEqualTo(
                "autoscaling.hpa-controller.io/fallback-after: required with autoscaling.hpa-controller.io/fallback-replicas (a duration from 1s to 24h, e.g. 2m)");
        assertThat(invalid(Map.of(P + "fallback-after", "2m"))).isEqualTo(
                "autoscaling.hpa-controller.io/fallback-replicas: required with autoscaling.hpa-controller.io/fallback-after (a whole number of at least 1)");
        assertThat(invalid(Map.of(P + "fallback-replicas", "6", P + "fallback-after", "25h")))
                .as("a half that is given but wrong is named once").isEqualTo(
                        "autoscaling.hpa-controller.io/fallback-after: must be a duration from 1s to 24h (e.g. 2m), got \"25h\"");
    }

    @Test
    void anUnknownNameUnderThePrefixIsAnErrorThatListsTheKnownOnes() {
        assertThat(invalid(Map.of(P + "sync-periode", "3s"))).isEqualTo("autoscaling.hpa-controller.io/sync-periode: unknown annotation "
                + "(known under autoscaling.hpa-controller.io/: cadence, cpu-initialization-period, fallback-after, fallback-replicas, "
                + "initial-readiness-delay, mode, predict, schedules, sync-period)");
    }

    @Test
    void theSchedulesAndPredictAnnotationsAreReadByTheirOwnParsers() {
        assertThat(invalid(Map.of(P + "schedules", "[{cron: \"0 8 * * *\", duration: 0s, timezone: UTC, minReplicas: 2}]")))
                .startsWith("autoscaling.hpa-controller.io/schedules[0].duration: ");
        assertThat(invalid(Map.of(P + "predict", "{model: Lineer, horizon: 2m}")))
                .startsWith("autoscaling.hpa-controller.io/predict.model: ");
    }

    @Test
    void everyProblemIsNamedInOneMessage() {
        assertThat(invalid(Map.of(P + "mode", "Off", P + "sync-period", "0s", P + "typo", "x")).split("; "))
                .hasSize(3)
                .anySatisfy(m -> assertThat(m).startsWith(P + "mode: "))
                .anySatisfy(m -> assertThat(m).startsWith(P + "sync-period: "))
                .anySatisfy(m -> assertThat(m).startsWith(P + "typo: unknown annotation"));
    }

    @Test
    void oursKeepsTheAnnotationsUnderThePrefixSorted() {
        assertThat(ControlAnnotations.ours(Map.of(P + "mode", "Preview", "other/x", "1", P + "fallback-after", "1m")))
                .containsExactly(Map.entry(P + "fallback-after", "1m"), Map.entry(P + "mode", "Preview"));
    }
}
