package io.hpacontroller;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36: no method on the sync path over 40 lines. The sync path is the packages a sync runs through, from the
 * worker ({@code controller}) through the core to the adapters of its ports and their API client; a method is
 * measured by {@link MethodLengths}. There are no exceptions: a method that grows past 40 lines fails this test.
 */
class SyncPathMethodsTest {

    static final int MAX_LINES = 40;

    /** The packages of the sync path (with their sub-packages), under src/main/java/io/hpacontroller. */
    static final List<String> SYNC_PATH = List.of("controller", "core", "hpa", "scale", "pods", "metrics", "events", "history", "api");

    @Test
    void noMethodOnTheSyncPathIsOver40Lines() throws IOException {
        Map<String, Integer> over = new TreeMap<>();
        Path root = Path.of("src/main/java/io/hpacontroller");
        for (String pkg : SYNC_PATH) {
            try (Stream<Path> files = Files.walk(root.resolve(pkg))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    for (MethodLengths.Method m : MethodLengths.of(Files.readString(file))) {
                        if (m.lines() > MAX_LINES) {
                            over.put(m.name(), m.lines());
                        }
                    }
                }
            }
        }
        assertThat(over).as("methods over %d lines on the sync path (split them into named steps)", MAX_LINES)
                .isEmpty();
    }

    @Test
    void theCounterMeasuresFromTheNameToTheClosingBraceAndSkipsBracesInTextAndLambdas() {
        List<String> body = new ArrayList<>();
        for (int i = 0; i < 39; i++) {
            body.add("        Runnable r" + i + " = () -> { String s = \"}{\"; char c = '}'; }; // }");
        }
        String source = """
                package x;

                /** { */
                final class Outer {
                    private static final int[] NONE = {1, 2};

                    @SuppressWarnings("unused")
                    private static <T> java.util.List<T> longOne(java.util.Map<String, int[]> m) throws Exception {
                %s
                    }

                    record Inner(int a) {
                        Inner {
                            a = Math.max(a, 0);
                        }
                    }
                }
                """.formatted(String.join("\n", body));

        assertThat(MethodLengths.of(source)).containsExactly(
                new MethodLengths.Method("Outer.longOne", 8, 41),
                new MethodLengths.Method("Inner.Inner", 51, 3));
    }
}
