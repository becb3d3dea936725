package io.hpacontroller.cli;

import picocli.CommandLine;

import java.util.Map;
import java.util.TreeMap;

/**
 * {@code --feature-gates=Name=bool,...} in kube-controller-manager's form. The gates this controller
 * knows: HPAScaleToZero (beta, on by default, as in v1.37) and HPAConfigurableTolerance (GA in v1.37,
 * locked on).
 */
public record FeatureGates(boolean scaleToZero) {

    public static final FeatureGates DEFAULTS = new FeatureGates(true);

    /** Parses a gate list; unknown gates and locked gates set to false are errors, as upstream. */
    public static FeatureGates parse(String text) {
        Map<String, Boolean> gates = new TreeMap<>();
        if (text != null && !text.isBlank()) {
            for (String part : text.split(",")) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int eq = p.indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("missing bool value for " + p);
                }
                String name = p.substring(0, eq).trim();
                String value = p.substring(eq + 1).trim();
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException("invalid value of " + name + "=" + value + ", err: strconv.ParseBool: parsing \"" + value + "\": invalid syntax");
                }
                gates.put(name, Boolean.parseBoolean(value.toLowerCase()));
            }
        }
        boolean scaleToZero = DEFAULTS.scaleToZero;
        for (Map.Entry<String, Boolean> g : gates.entrySet()) {
            switch (g.getKey()) {
                case "HPAScaleToZero" -> scaleToZero = g.getValue();
                case "HPAConfigurableTolerance" -> {
                    if (!g.getValue()) {
                        throw new IllegalArgumentException("cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true");
                    }
                }
                default -> throw new IllegalArgumentException("unrecognized feature gate: " + g.getKey());
            }
        }
        return new FeatureGates(scaleToZero);
    }

    /** picocli converter. */
    public static final class Converter implements CommandLine.ITypeConverter<FeatureGates> {
        @Override
        public FeatureGates convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
