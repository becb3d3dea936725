package io.hpacontroller;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The layering of docs/architecture.md ("Layering"), checked on the product's classes (not the tests'): each package
 * imports only packages on lower floors, no package cycle, the core imports only core and input, at most 20 classes
 * a package and 500 lines a class. {@code LayeringRulesTest} shows each rule failing on bad fixture classes.
 */
@AnalyzeClasses(packages = ArchitectureTest.ROOT, importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    static final String ROOT = "io.hpacontroller";

    /** The package picture of docs/architecture.md, from the top floor down: a package imports only floors below its own. */
    static final List<Set<String>> FLOORS = List.of(
            Set.of("bench"),
            Set.of("cli"),
            Set.of("explain", "describe", "sim", "conformance"),
            Set.of("ops"),
            Set.of("shard"),
            Set.of("lease"),
            Set.of("controller"),
            Set.of("shadow", "history", "events"),
            Set.of("hpa", "metrics", "scale", "pods"),
            Set.of("api"),
            Set.of("core"),
            Set.of("input"));

    @ArchTest
    static final ArchRule noUpwardImports = LayeringRules.importOnlyDown(ROOT, FLOORS);

    @ArchTest
    static final ArchRule noPackageCycles = LayeringRules.freeOfCycles(ROOT);

    @ArchTest
    static final ArchRule coreImportsOnlyCoreAndInput = LayeringRules.coreImportsOnlyCoreAndInput(ROOT);

    @ArchTest
    static final ArchRule atMost20ClassesAPackage = LayeringRules.packagesHoldAtMost(ROOT, 20);

    @ArchTest
    static final ArchRule atMost500LinesAClass = LayeringRules.sourcesHoldAtMost(ROOT, Path.of("src/main/java"), 500);
}
