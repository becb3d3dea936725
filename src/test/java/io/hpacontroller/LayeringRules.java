package io.hpacontroller;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.lang.AbstractClassesTransformer;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.all;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering rules of docs/architecture.md ("Packages", "Layering") as ArchUnit rules over any root package, so
 * that {@code ArchitectureTest} checks the product with them and {@code LayeringRulesTest} shows each one failing
 * on a deliberately bad set of fixture classes.
 */
final class LayeringRules {

    private LayeringRules() {
    }

    /**
     * Each class imports, of the project, only its own top-level package and those on lower floors ({@code floors}
     * lists the top-level packages under {@code root} from the top floor down). A package on no floor fails too:
     * a new package must be placed in the picture.
     */
    static ArchRule importOnlyDown(String root, List<Set<String>> floors) {
        return classes().that().resideInAPackage(root + "..")
                .should(new ArchCondition<JavaClass>("import only their own package and packages on lower floors " + floors) {
                    @Override
                    public void check(JavaClass origin, ConditionEvents events) {
                        String from = topPackage(root, origin);
                        int fromFloor = floorOf(floors, from);
                        if (fromFloor < 0) {
                            events.add(SimpleConditionEvent.violated(origin, origin.getName() + ": package " + from + " is on no floor"));
                            return;
                        }
                        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                            JavaClass target = d.getTargetClass().getBaseComponentType();
                            if (!target.getPackageName().startsWith(root + ".")) {
                                continue;
                            }
                            String to = topPackage(root, target);
                            if (!to.equals(from) && floorOf(floors, to) <= fromFloor) {
                                events.add(SimpleConditionEvent.violated(d, d.getDescription()
                                        + " (" + to + " is not on a floor below " + from + ")"));
                            }
                        }
                    }
                });
    }

    /** No cycle between any two packages under {@code root} (each package, also a sub-package such as core.calc, is a slice). */
    static ArchRule freeOfCycles(String root) {
        return slices().matching(root + ".(**)").should().beFreeOfCycles();
    }

    /** The core imports nothing of the project outside {@code core} and {@code input}. */
    static ArchRule coreImportsOnlyCoreAndInput(String root) {
        return noClasses().that().resideInAPackage(root + ".core..")
                .should().dependOnClassesThat(resideInAPackage(root + "..")
                        .and(not(resideInAnyPackage(root + ".core..", root + ".input.."))));
    }

    /**
     * At most {@code max} top-level classes (and interfaces, records, enums) in each package; a nested class counts
     * with the class it is written in, package-info not at all.
     */
    static ArchRule packagesHoldAtMost(String root, int max) {
        return all(new AbstractClassesTransformer<JavaPackage>("packages under " + root) {
            @Override
            public Iterable<JavaPackage> doTransform(JavaClasses classes) {
                Set<String> names = new TreeSet<>();
                classes.stream().filter(c -> c.getPackageName().startsWith(root + ".")).forEach(c -> names.add(c.getPackageName()));
                return names.stream().map(classes::getPackage).toList();
            }
        }).should(new ArchCondition<JavaPackage>("hold at most " + max + " top-level classes") {
            @Override
            public void check(JavaPackage p, ConditionEvents events) {
                List<String> top = p.getClasses().stream()
                        .filter(c -> c.isTopLevelClass() && !c.isArray() && !c.getSimpleName().equals("package-info"))
                        .map(JavaClass::getSimpleName).sorted().toList();
                if (top.size() > max) {
                    events.add(SimpleConditionEvent.violated(p, p.getName() + " holds " + top.size() + " classes: " + top));
                }
            }
        });
    }

    /**
     * At most {@code max} lines in each source file of a top-level class, counted in the file itself (found under
     * {@code sourceRoot} by the class file's SourceFile attribute), as {@code wc -l} does; a class whose source is
     * not found fails.
     */
    static ArchRule sourcesHoldAtMost(String root, Path sourceRoot, int max) {
        return classes().that().resideInAPackage(root + "..").and().areTopLevelClasses()
                .should(new ArchCondition<JavaClass>("have at most " + max + " lines of source") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        Path file = c.getSource().flatMap(s -> s.getFileName())
                                .map(name -> sourceRoot.resolve(c.getPackageName().replace('.', '/')).resolve(name))
                                .orElse(null);
                        if (file == null || !Files.isRegularFile(file)) {
                            events.add(SimpleConditionEvent.violated(c, c.getName() + ": source not found (" + file + ")"));
                            return;
                        }
                        long lines = lineCount(file);
                        if (lines > max) {
                            events.add(SimpleConditionEvent.violated(c, file + " has " + lines + " lines"));
                        }
                    }
                });
    }

    private static long lineCount(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String topPackage(String root, JavaClass c) {
        String rest = c.getPackageName().substring(root.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    private static int floorOf(List<Set<String>> floors, String topPackage) {
        for (int i = 0; i < floors.size(); i++) {
            if (floors.get(i).contains(topPackage)) {
                return i;
            }
        }
        return -1;
    }
}
