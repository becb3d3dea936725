package io.hpacontroller.sim.report;

import io.hpacontroller.testing.Waits;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Debian's headless Chromium, for looking at the report as a browser does. CI installs it (.ci/run). */
final class Chromium {

    private static final long TIMEOUT_SECONDS = Waits.STATE.toSeconds();

    private final Path binary;

    private Chromium(Path binary) {
        this.binary = binary;
    }

    /** The chromium binary on the PATH, if any. */
    static Optional<Chromium> find() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return Optional.of(new Chromium(p));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * One launch for both looks: returns the DOM after the page loaded, serialized, and writes a PNG of the page's first
     * {@code width x height} pixels (the report has no script, so the window's size does not change its DOM).
     */
    String dumpDomAndScreenshot(Path page, Path profile, Path png, int width, int height) throws IOException, InterruptedException {
        String dom = run(page, profile, "--dump-dom", "--screenshot=" + png, "--window-size=" + width + "," + height, "--hide-scrollbars");
        if (!Files.isRegularFile(png)) {
            throw new IOException("chromium wrote no screenshot to " + png);
        }
        return dom;
    }

    private String run(Path page, Path profile, String... extra) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile));
        cmd.addAll(List.of(extra));
        cmd.add(page.toUri().toString());
        Path err = Files.createTempFile(profile.getParent(), "chromium", ".log");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("chromium did not finish within " + TIMEOUT_SECONDS + " s");
        }
        if (p.exitValue() != 0) {
            throw new IOException("chromium exited with " + p.exitValue() + ": " + Files.readString(err));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
