package io.hpacontroller.core.forecast;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.SettingNode;
import io.hpacontroller.core.forecast.PredictSetting.Model;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class PredictAnnotationTest {

    private static final String NAME = "autoscaling.hpa-controller.io/predict";

    private static PredictSetting valid(String value) {
        Parsed<PredictSetting> parsed = PredictAnnotation.parse(value);
        assertThat(parsed).as(value).isInstanceOf(Parsed.Valid.class);
        return ((Parsed.Valid<PredictSetting>) parsed).value();
    }

    @Test
    void theIssuesExampleInYamlAndJson() {
        PredictSetting expected = new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(24), Duration.ofMinutes(2), Duration.ofDays(7));
        assertThat(valid("{model: HoltWinters, season: 24h, horizon: 2m, history: 7d}")).isEqualTo(expected);
        assertThat(valid("{\"model\": \"HoltWinters\", \"season\": \"24h\", \"horizon\": \"2m\", \"history\": \"168h\"}")).isEqualTo(expected);
        assertThat(valid("model: HoltWinters\nseason: 24h\nhorizon: 2m\nhistory: 1w\n")).isEqualTo(expected);
    }

    @Test
    void defaults() {
        assertThat(valid("{model: HoltWinters, horizon: 90s}")).isEqualTo(
                new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(24), Duration.ofSeconds(90), Duration.ofDays(7)));
        assertThat(valid("{model: HoltWinters, season: 168h, horizon: 5m}").history()).isEqualTo(Duration.ofDays(14));
        assertThat(valid("{model: Linear, horizon: 2m}")).isEqualTo(
                new PredictSetting(Model.LINEAR, null, Duration.ofMinutes(2), Duration.ofMinutes(30)));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
            "{model: HoltWinters, horizon: 2m, seasons: 24h} | .seasons: unknown field (known fields: history, horizon, model, season)",
            "{horizon: 2m}                                   | .model: required (HoltWinters or Linear)",
            "{model: holtwinters, horizon: 2m}               | .model: \"holtwinters\" is not a model: HoltWinters or Linear",
            "{model: ARIMA, horizon: 2m}                     | .model: \"ARIMA\" is not a model: HoltWinters or Linear",
            "{model: Linear}                                 | .horizon: required (a duration such as 2m)",
            "{model: Linear, horizon: 0s}                    | .horizon: must be more than 0s and at most 1h, got 0s",
            "{model: Linear, horizon: 2h}                    | .horizon: must be more than 0s and at most 1h, got 2h0m0s",
            "{model: Linear, horizon: 2 minutes}             | .horizon: invalid duration \"2 minutes\"",
            "{model: Linear, horizon: 120}                   | .horizon: expected a duration such as 2m, got 120",
            "{model: Linear, horizon: 2m, season: 24h}       | .season: applies to HoltWinters only, not to Linear",
            "{model: Linear, horizon: 2m, history: 2d}       | .history: must be between 5m and 24h for Linear, got 48h0m0s",
            "{model: HoltWinters, horizon: 2m, season: 5m}   | .season: must be between 10m and 168h in whole minutes, got 5m0s",
            "{model: HoltWinters, horizon: 2m, season: 30d}  | .season: must be between 10m and 168h in whole minutes, got 720h0m0s",
            "{model: HoltWinters, horizon: 2m, history: 1d}  | .history: must be between two seasons (48h0m0s) and 14d for HoltWinters, got 24h0m0s",
            "{model: HoltWinters, horizon: 2m, history: 30d} | .history: must be between two seasons (48h0m0s) and 14d for HoltWinters, got 720h0m0s",
            "[model, HoltWinters]                            | : expected a mapping with the keys history, horizon, model, season, got a list",
            "HoltWinters                                     | : expected a mapping with the keys history, horizon, model, season, got \"HoltWinters\"",
            "{model: Linear, horizon: 2m                     | : not valid JSON or YAML",
    })
    void mistakesNameTheFieldAndTheAcceptedRange(String value, String message) {
        Parsed<PredictSetting> parsed = PredictAnnotation.parse(value);
        assertThat(parsed).isInstanceOf(Parsed.Invalid.class);
        assertThat(((Parsed.Invalid<PredictSetting>) parsed).message()).startsWith(NAME + message.trim());
    }

    /**
     * Issue 29, item 9: about 145 KB of nested lists overflowed the YAML reader's stack at every sync. Read on a thread
     * with the chart's stack size (-Xss256k); the result must be an invalid annotation, never an Error.
     */
    @Test
    void deepOrLongTextIsRefusedBeforeItIsRead() throws Exception {
        String deepFlow = "[".repeat(30_000) + "]".repeat(30_000);
        String deepBlock = "- ".repeat(17) + "a";
        String deepMapping = "{model: " + "{a: ".repeat(16) + "b" + "}".repeat(17);
        String nested = "{model: Linear, horizon: 2m, history: " + "[".repeat(15) + "]".repeat(15) + "}";
        String tooLong = "{model: Linear, horizon: 2m}" + " ".repeat(SettingNode.MAX_TEXT);
        assertThat(onSmallStack(deepFlow)).isEqualTo(Parsed.invalid(PredictAnnotation.NAME + ": nested deeper than 16 levels"));
        assertThat(onSmallStack(deepBlock)).isEqualTo(Parsed.invalid(PredictAnnotation.NAME + ": nested deeper than 16 levels"));
        assertThat(onSmallStack(deepMapping)).isEqualTo(Parsed.invalid(PredictAnnotation.NAME + ": nested deeper than 16 levels"));
        assertThat(onSmallStack(nested)).as("16 levels are read").isEqualTo(
                Parsed.invalid(PredictAnnotation.NAME + ".history: expected a duration such as 7d, got a list"));
        assertThat(onSmallStack(tooLong)).isEqualTo(Parsed.invalid(PredictAnnotation.NAME + ": longer than 65536 characters (65564)"));
    }

    private static Parsed<PredictSetting> onSmallStack(String value) throws Exception {
        java.util.concurrent.atomic.AtomicReference<Object> result = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                result.set(PredictAnnotation.parse(value));
            } catch (Throwable e) {
                result.set(e);
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join();
        assertThat(result.get()).isNotInstanceOf(Throwable.class);
        @SuppressWarnings("unchecked")
        Parsed<PredictSetting> parsed = (Parsed<PredictSetting>) result.get();
        return parsed;
    }

    @Test
    void theMirrorApiFieldWithItsOwnPath() throws Exception {
        var node = new ObjectMapper().readTree("{\"model\": \"Linear\", \"horizon\": \"2m\", \"history\": \"1m\"}");
        assertThat(PredictAnnotation.parse(SettingNode.of(node, "spec.predict")))
                .isEqualTo(Parsed.invalid("spec.predict.history: must be between 5m and 24h for Linear, got 1m0s"));
    }
}
