package io.hpacontroller.conformance;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every vendored conformance case (src/test/resources/conformance*), one test each. */
class ConformanceCasesTest {

    private static final List<Path> ROOTS = List.of(
            Path.of("src/test/resources/conformance"),
            Path.of("src/test/resources/conformance-v137"),
            Path.of("src/test/resources/conformance-own"));

    private final ConformanceRunner runner = new ConformanceRunner();

    @TestFactory
    Stream<DynamicTest> everyCasePasses() throws IOException {
        return ConformanceRunner.findCases(ROOTS).stream().map(file ->
                DynamicTest.dynamicTest(ROOTS.get(0).getParent().relativize(file).toString(), file.toUri(), () -> {
                    ConformanceRunner.Result r = runner.run(file);
                    assertThat(r.passed()).as(r.line()).isTrue();
                }));
    }

    @Test
    void theVendoredCasesAreAllThere() throws IOException {
        assertThat(ConformanceRunner.findCases(List.of(ROOTS.get(0)))).hasSizeGreaterThanOrEqualTo(159);
        assertThat(ConformanceRunner.findCases(List.of(ROOTS.get(1)))).hasSizeGreaterThanOrEqualTo(58);
        assertThat(ConformanceRunner.findCases(List.of(ROOTS.get(2)))).hasSizeGreaterThanOrEqualTo(9);
    }
}
