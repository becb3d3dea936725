package io.hpacontroller;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each rule of {@code ArchitectureTest} fails on the fixture classes of {@code io.hpacontroller.archfixture}, made
 * to break it: lower.Bottom imports upper.Top (upward, and a cycle with Top's import of lower.Other), core.Pure
 * imports lower.Other, lower holds two classes, Bottom.java has 15 lines.
 */
class LayeringRulesTest {

    private static final String ROOT = "io.hpacontroller.archfixture";
    private static final List<Set<String>> FLOORS = List.of(Set.of("upper"), Set.of("lower"), Set.of("core"), Set.of("input"));

    private static JavaClasses fixtures;

    @BeforeAll
    static void importFixtures() {
        fixtures = new ClassFileImporter().importPackages(ROOT);
        assertThat(fixtures).hasSize(4);
    }

    @Test
    void anUpwardImportFails() {
        assertThat(violations(LayeringRules.importOnlyDown(ROOT, FLOORS)))
                .anyMatch(v -> v.contains("Bottom.up()") && v.contains("(upper is not on a floor below lower)"))
                .noneMatch(v -> v.contains("Top.other()"));
    }

    @Test
    void aPackageOnNoFloorFails() {
        assertThat(violations(LayeringRules.importOnlyDown(ROOT, List.of(Set.of("upper"), Set.of("lower")))))
                .contains(ROOT + ".core.Pure: package core is on no floor");
    }

    @Test
    void aCycleFails() {
        assertThat(String.join("\n", violations(LayeringRules.freeOfCycles(ROOT))))
                .contains("Cycle detected").contains("lower").contains("upper");
    }

    @Test
    void theCoreImportingOutsideCoreAndInputFails() {
        assertThat(violations(LayeringRules.coreImportsOnlyCoreAndInput(ROOT)))
                .anyMatch(v -> v.contains("Pure.other()") && v.contains("lower.Other"))
                .hasSize(2);  // the method's return type and the constructor call
    }

    @Test
    void aPackageWithMoreClassesThanTheLimitFails() {
        assertThat(violations(LayeringRules.packagesHoldAtMost(ROOT, 1)))
                .containsExactly(ROOT + ".lower holds 2 classes: [Bottom, Other]");
        assertThat(violations(LayeringRules.packagesHoldAtMost(ROOT, 2))).isEmpty();
    }

    @Test
    void aClassLongerThanTheLimitFails() {
        Path tests = Path.of("src/test/java");
        assertThat(violations(LayeringRules.sourcesHoldAtMost(ROOT, tests, 14)))
                .containsExactly(tests.resolve("io/hpacontroller/archfixture/lower/Bottom.java") + " has 15 lines");
        assertThat(violations(LayeringRules.sourcesHoldAtMost(ROOT, Path.of("no-such-dir"), 500)))
                .hasSize(4).allMatch(v -> v.contains("source not found"));
    }

    private static List<String> violations(ArchRule rule) {
        EvaluationResult result = rule.evaluate(fixtures);
        return result.getFailureReport().getDetails();
    }
}
