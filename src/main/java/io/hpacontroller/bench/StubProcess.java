package io.hpacontroller.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/** The {@link ApiStub} running in a child JVM of the bench. */
final class StubProcess implements AutoCloseable {

    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;
    final int port;

    StubProcess(int hpas, int podsPerHpa) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(List.of(java, "-Xmx1g", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                ApiStubMain.class.getName(), Integer.toString(hpas), Integer.toString(podsPerHpa)))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        String line = out.readLine();
        if (line == null || !line.startsWith("PORT ")) {
            process.destroyForcibly();
            throw new IOException("the API stub did not start: " + line);
        }
        port = Integer.parseInt(line.substring(5).trim());
    }

    /** Requests the stub has served so far, by kind. */
    Map<String, Long> counts() throws IOException {
        Map<String, Long> counts = new HashMap<>();
        pairs("COUNTS").forEach((k, v) -> counts.put(k, v));
        return counts;
    }

    /** Metrics queries per wall-clock second (epoch second). */
    Map<Long, Long> queriesPerSecond() throws IOException {
        Map<Long, Long> series = new TreeMap<>();
        pairs("SERIES").forEach((k, v) -> series.put(Long.parseLong(k), v));
        return series;
    }

    /** How many HPAs had their metrics queried, and the wall-clock time (epoch ms) the last of them first was. */
    long[] firstQueries() throws IOException {
        String[] parts = ask("FIRST").trim().split(" ");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
    }

    /** Serves members' Leases for {@code phantoms}, always live, publishing {@code view} ({@link ApiStub#phantomMembers}). */
    void phantomMembers(List<String> phantoms, List<String> view) throws IOException {
        ask("PHANTOMS " + String.join(",", phantoms) + " " + String.join(",", view));
    }

    private synchronized String ask(String command) throws IOException {
        in.println(command);
        String line = out.readLine();
        if (line == null || !line.startsWith(command)) {
            throw new IOException("the API stub answered " + command + " with: " + line);
        }
        return line.substring(command.length());
    }

    private Map<String, Long> pairs(String command) throws IOException {
        Map<String, Long> pairs = new LinkedHashMap<>();
        for (String part : ask(command).trim().split(" ")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                pairs.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
            }
        }
        return pairs;
    }

    @Override
    public void close() {
        in.close();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
