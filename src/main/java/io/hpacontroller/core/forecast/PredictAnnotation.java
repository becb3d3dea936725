package io.hpacontroller.core.forecast;

import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.SettingNode;
import io.hpacontroller.core.forecast.PredictSetting.Model;

import java.time.Duration;
import java.util.Set;

/**
 * Reads the value of the annotation {@value #NAME} (or the mirror API's {@code spec.predict}): a JSON or
 * YAML mapping with the fields {@code model} (required: {@code HoltWinters} or {@code Linear}),
 * {@code season}, {@code horizon} (required) and {@code history}; see {@link PredictSetting} for the
 * ranges and defaults. Unknown fields are errors:
 * <pre>
 * {model: HoltWinters, season: 24h, horizon: 2m, history: 7d}
 * </pre>
 */
public final class PredictAnnotation {

    public static final String NAME = "autoscaling.hpa-controller.io/predict";
    private static final Set<String> FIELDS = Set.of("model", "season", "horizon", "history");

    private PredictAnnotation() {
    }

    /** Reads the annotation's value. */
    public static Parsed<PredictSetting> parse(String value) {
        try {
            return parse(SettingNode.read(value, NAME));
        } catch (IllegalArgumentException e) {
            return Parsed.invalid(e.getMessage());
        }
    }

    /** Reads a value already parsed (e.g. {@code spec.predict} of the mirror API, with that path). */
    public static Parsed<PredictSetting> parse(SettingNode node) {
        try {
            node.mapping(FIELDS);
            SettingNode modelNode = node.child("model");
            String modelText = modelNode.text("HoltWinters or Linear");
            Model model = Model.of(modelText);
            if (model == null) {
                throw modelNode.error("\"" + modelText + "\" is not a model: HoltWinters or Linear");
            }
            SettingNode seasonNode = node.child("season");
            Duration season = seasonNode.isMissing() ? (model == Model.HOLT_WINTERS ? PredictSetting.DEFAULT_SEASON : null)
                    : seasonNode.duration("24h");
            SettingNode horizonNode = node.child("horizon");
            Duration horizon = horizonNode.duration("2m");
            SettingNode historyNode = node.child("history");
            Duration history = historyNode.isMissing() ? PredictSetting.defaultHistory(model, season) : historyNode.duration("7d");
            try {
                return Parsed.valid(new PredictSetting(model, season, horizon, history));
            } catch (IllegalArgumentException e) {
                String message = e.getMessage();
                SettingNode at = message.startsWith("horizon") ? horizonNode : message.startsWith("season") ? seasonNode : historyNode;
                throw at.errorFrom(message);
            }
        } catch (IllegalArgumentException e) {
            return Parsed.invalid(e.getMessage());
        }
    }
}
