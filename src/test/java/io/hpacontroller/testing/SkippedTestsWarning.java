package io.hpacontroller.testing;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints, at the end of the run, every test that an assumption skipped (e.g. the browser tests when
 * Chromium is not installed), with the reason: a green build must not hide that part of it did not run.
 * Registered for every JUnit run through {@code META-INF/services}.
 */
public final class SkippedTestsWarning implements TestExecutionListener {

    private final List<String> skipped = new ArrayList<>();
    private final PrintStream out;

    public SkippedTestsWarning() {
        this(System.err);
    }

    SkippedTestsWarning(PrintStream out) {
        this.out = out;
    }

    @Override
    public synchronized void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (test.isTest() && result.getStatus() == TestExecutionResult.Status.ABORTED) {
            String reason = result.getThrowable().map(Throwable::getMessage).orElse("no reason given");
            skipped.add(name(test) + ": " + reason.replaceFirst("^Assumption failed: ", ""));
        }
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        if (skipped.isEmpty()) {
            return;
        }
        String rule = "#".repeat(100);
        out.println("WARNING: " + rule);
        out.println("WARNING: " + skipped.size() + " test(s) SKIPPED, so this run checked less than the whole suite:");
        skipped.forEach(s -> out.println("WARNING:   " + s));
        out.println("WARNING: " + rule);
        out.flush();
        skipped.clear();
    }

    private static String name(TestIdentifier test) {
        String id = test.getLegacyReportingName();
        return test.getSource().map(s -> s instanceof org.junit.platform.engine.support.descriptor.MethodSource m
                ? m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1) + "." + m.getMethodName()
                : id).orElse(id);
    }
}
