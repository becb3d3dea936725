package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricIdentifier;
import io.hpacontroller.core.validation.FieldPath;
import io.hpacontroller.core.validation.HpaValidation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CRD's patterns agree with what they stand for: the names with the controller's own check (upstream's
 * {@code IsValidPathSegmentName}, through {@link HpaValidation}), the quantities with the sign of the parsed quantity.
 * Read as kube-apiserver reads a pattern (Go's {@code regexp.MatchString}: a search; the patterns are anchored).
 */
class MirrorCrdRulesTest {

    private static final List<String> NAMES = List.of("web", "web?x=", "...", "..a", ".a", "a.", "a..b", ".a.", "a b", "grüße", "x;y",
            ".", "..", "a/b", "../../victim/deployments/web", "%", "a%2Fb", "/", "./", "./a", "qps\nx", "\t", "a\u007f", "\u0000");

    private static boolean matches(String pattern, String value) {
        return Pattern.compile(pattern).matcher(value).find();
    }

    @Test
    void aNameMatchesExactlyWhenUpstreamsPathSegmentCheckTakesIt() {
        for (String name : NAMES) {
            boolean upstream = HpaValidation.validateMetricName(new MetricIdentifier(name, null), FieldPath.of("name")).isEmpty();
            assertThat(matches(MirrorCrdRules.PATH_SEGMENT_NAME, name)).as("%s", name).isEqualTo(upstream);
            boolean control = name.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
            assertThat(matches(MirrorCrdRules.METRIC_NAME, name)).as("metric name %s", name).isEqualTo(upstream && !control);
        }
        assertThat(matches(MirrorCrdRules.PATH_SEGMENT_NAME, "")).as("empty: the CEL rule says Required").isTrue();
    }

    @Test
    void aQuantityMatchesExactlyWhenItsSignAllows() {
        List<String> quantities = List.of("1", "+1", "10", "0.5", ".5", "5.", "1n", "1Ki", "1e3", "1e-3", "+0.5e-3", "010", "0.001m",
                "0", "+0", "0.0", ".0", "0.", "0m", "0Ki", "0e5", "00", "-1", "-0.5", "-500m", "-0", "-0.0", "-0Ki", "-.0");
        for (String q : quantities) {
            int sign = new Quantity(q).getNumericalAmount().signum();
            assertThat(matches(MirrorCrdRules.POSITIVE_QUANTITY, q)).as("positive %s", q).isEqualTo(sign > 0);
            assertThat(matches(MirrorCrdRules.NON_NEGATIVE_QUANTITY, q)).as("not negative %s", q).isEqualTo(sign >= 0);
        }
    }
}
