package io.hpacontroller.core;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuantitiesTest {

    @ParameterizedTest(name = "{0} -> {1}m")
    @CsvSource({
            "500m, 500", "1, 1000", "1.5, 1500", "2k, 2000000", "1Ki, 1024000", "512Mi, 536870912000",
            "1e3, 1000000", "0, 0", "100u, 1", "0.5m, 1", "1.0001m, 2", "1n, 1", "999999n, 1", "999999999n, 1000",
            // negative amounts round away from zero, like upstream's int64Amount.AsScaledInt64
            "-500m, -500", "-0.5m, -1", "-1.5m, -2"})
    void milliValueRoundsUpToTheNextMilliUnit(String quantity, long milli) {
        assertThat(Quantities.milliValue(quantity)).isEqualTo(milli);
    }

    @Test
    void milliValueSaturatesAtTheBoundsOfALong() {
        assertThat(Quantities.milliValue("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(Quantities.milliValue("1e99")).isEqualTo(Long.MAX_VALUE);
        assertThat(Quantities.milliValue("9".repeat(64))).isEqualTo(Long.MAX_VALUE);
        assertThat(Quantities.milliValue("1e-99")).isEqualTo(1);
        assertThat(Quantities.milliValue("8Ei")).isEqualTo(Long.MAX_VALUE);
        assertThat(Quantities.milliValue("-9223372036854775807")).isEqualTo(Long.MIN_VALUE);
        assertThat(Quantities.milliValue("9223372036854775m")).isEqualTo(9223372036854775L);
    }

    @Test
    void malformedOrMissingQuantitiesAreIllegalArguments() {
        for (String bad : new String[]{"abc", "1.5.5", "10Qx", "NaN", "Infinity", " 1"}) {
            assertThatThrownBy(() -> Quantities.milliValue(new Quantity(bad))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed quantity");
        }
        assertThatThrownBy(() -> Quantities.milliValue((Quantity) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("quantity is not set");
    }

    /** The API server accepts these (1e10000000 is stored as 10e9999999); before the bound the first took 29 s of CPU. */
    @Test
    void absurdQuantitiesAreRefusedFromTheirTextBeforeAnyArithmetic() {
        List<String> absurd = List.of("1e10000000", "10e9999999", "1E100", "1e-100", "1e+100", "1" + "0".repeat(64), "0." + "0".repeat(63) + "1",
                "-" + "9".repeat(65), "1e" + "9".repeat(1_000_000), "9".repeat(1_000_000), "1k99999999", "2Ki5");
        for (String text : absurd) {
            String shown = text.length() > 40 ? text.substring(0, 40) : text;
            assertThatThrownBy(() -> Quantities.milliValue(text)).as(shown)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("malformed quantity \"" + shown);
            assertThatThrownBy(() -> Quantities.milliValue(new Quantity(text))).as(shown).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> Quantities.approximate(new Quantity(text))).as(shown).isInstanceOf(IllegalArgumentException.class);
            assertThat(Quantities.sameValue(new Quantity(text), new Quantity("1"))).as(shown).isFalse();
        }
        assertThat(Quantities.outOfBounds("1e10000000")).isEqualTo("the exponent of a quantity may have at most 2 digits (1e99 at most)");
        assertThat(Quantities.outOfBounds("1" + "0".repeat(64))).isEqualTo("quantities may have at most 64 digits");
        assertThat(Quantities.outOfBounds("1k5")).startsWith("quantities must match the regular expression");
        assertThat(Quantities.shown("9".repeat(100))).isEqualTo("\"" + "9".repeat(40) + "...\" (100 characters)");
        for (String within : List.of("1e99", "1E-99", "5E", "5Ei", "1.5", ".5", "+1", "-1", "1e01", "9".repeat(64), "0." + "0".repeat(62) + "1")) {
            assertThat(Quantities.outOfBounds(within)).as(within).isNull();
        }
    }

    @ParameterizedTest(name = "{0}m -> {1}")
    @CsvSource({
            "0, 0", "500, 500m", "1000, 1", "1500, 1500m", "2000000, 2k", "1536000, 1536", "1500000, 1500",
            "3000000000, 3M", "1000000000000000000, 1P", "1000000000000000001, 1000000000000000001m",
            "-500, -500m", "-2000000, -2k", "9223372036854775807, 9223372036854775807m",
            // memory too: upstream writes every status value as DecimalSI, so 100Mi is 104857600
            "104857600000, 104857600", "1073741824000, 1073741824", "1024000, 1024"})
    void decimalTextIsCanonical(long milli, String text) {
        assertThat(Quantities.formatDecimal(milli)).isEqualTo(text);
        assertThat(Quantities.decimal(milli)).isEqualTo(new Quantity(text));
    }

    @ParameterizedTest(name = "{0} is written {1}")
    @CsvSource({
            // as the API server writes a request back (kubectl get -o yaml), in the format its suffix chose
            "256Mi, 256Mi", "0.25Gi, 256Mi", "1.5Gi, 1536Mi", "1024Ki, 1Mi", "1000Ki, 1000Ki", "2Gi, 2Gi", "1025Ki, 1025Ki",
            "268435456, 268435456", "0.5Ki, 512", "1.5Ki, 1536", "500m, 500m", "0.5, 500m", "1, 1", "1000, 1k", "1500, 1500",
            "2000m, 2", "20m, 20m", "1e3, 1e3", "1n, 1n", "0, 0"})
    void canonicalTextIsWhatTheApiServerWrites(String quantity, String written) {
        assertThat(Quantities.canonical(quantity)).isEqualTo(written);
    }

    @Test
    void sameValueComparesNumbersNotText() {
        assertThat(Quantities.sameValue(new Quantity("1"), new Quantity("1000m"))).isTrue();
        assertThat(Quantities.sameValue(new Quantity("1Ki"), new Quantity("1024"))).isTrue();
        assertThat(Quantities.sameValue(new Quantity("1k"), new Quantity("1Ki"))).isFalse();
        assertThat(Quantities.sameValue(null, null)).isTrue();
        assertThat(Quantities.sameValue(new Quantity("1"), null)).isFalse();
        assertThat(Quantities.sameValue(new Quantity("abc"), new Quantity("abc"))).isTrue();
        assertThat(Quantities.sameValue(new Quantity("abc"), new Quantity("1"))).isFalse();
    }

    @Test
    void approximateIsTheDoubleValue() {
        assertThat(Quantities.approximate(new Quantity("150m"))).isEqualTo(0.15);
        assertThat(Quantities.approximate(new Quantity("1Ki"))).isEqualTo(1024.0);
    }

    @Test
    void theMetricsServersFormsReadAsTheGeneralPathReadsThem() {
        // text, and the same as fabric8's Quantity (amount and format)
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        java.util.List<String> suffixes = java.util.List.of("n", "u", "m", "", "k", "M", "G", "Ki", "Mi", "Gi");
        for (int i = 0; i < 20_000; i++) {
            long value = random.nextInt(4) == 0 ? random.nextLong(0, 1_000_000_000_000_000_000L) : random.nextLong(0, 10_000_000);
            String text = value + suffixes.get(random.nextInt(suffixes.size()));
            assertThat(Quantities.milliValue(text)).as(text).isEqualTo(Quantities.generalMilliValue(new Quantity(text)));
            assertThat(Quantities.milliValue(new Quantity(text))).as(text).isEqualTo(Quantities.generalMilliValue(new Quantity(text)));
        }
        for (String text : java.util.List.of("0", "0n", "1n", "999999n", "1000000n", "1000001n", "007m", "9223372036854775m",
                "9223372036854776k", "999999999999999999Gi", "1234567890123456789", "1.5", "-5m", "+5m", "1e3", "5Ti", "5E", "5Pi")) {
            assertThat(Quantities.milliValue(text)).as(text).isEqualTo(Quantities.generalMilliValue(new Quantity(text)));
        }
        assertThatThrownBy(() -> Quantities.milliValue("5x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Quantities.milliValue("m")).isInstanceOf(IllegalArgumentException.class);
    }
}
