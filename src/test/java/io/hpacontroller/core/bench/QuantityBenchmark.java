package io.hpacontroller.core.bench;

import io.fabric8.kubernetes.api.model.Quantity;
import io.hpacontroller.core.Quantities;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The cost of reading one quantity as a target or a request is read ({@link Quantities#milliValue(Quantity)}), for
 * the forms a cluster writes, the most expensive one within {@link Quantities#outOfBounds} (64 digits times 10^-99:
 * the general BigDecimal path with the largest scale) and an absurd one the API server accepts and stores
 * ({@code 10e9999999}, 29 s of CPU before the bound), which is now refused from its text.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class QuantityBenchmark {

    @Param({"500m", "64Mi", "1.5", "WORST_WITHIN", "WORST_WITHIN_LARGE", "10e9999999"})
    public String text;

    private Quantity quantity;

    @Setup
    public void setUp() {
        String nines = "9".repeat(32) + "." + "9".repeat(32);
        quantity = new Quantity(switch (text) {
            case "WORST_WITHIN" -> nines + "e-99";
            case "WORST_WITHIN_LARGE" -> nines + "e99";
            default -> text;
        });
    }

    @Benchmark
    public long milliValue() {
        try {
            return Quantities.milliValue(quantity);
        } catch (IllegalArgumentException refused) {
            return -1;
        }
    }
}
