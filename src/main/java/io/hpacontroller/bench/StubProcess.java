package io.hpacontroller.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
        in.println("COUNTS");
        String line = out.readLine();
        Map<String, Long> counts = new HashMap<>();
        if (line != null && line.startsWith("COUNTS")) {
            for (String part : line.substring(6).trim().split(" ")) {
                int eq = part.indexOf('=');
                if (eq > 0) {
                    counts.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
                }
            }
        }
        return counts;
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
