package io.hpacontroller.testing.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The image's class-data archive (AppCDS), written when the image is built: the controller's {@code run}, on the
 * image's own runtime (jlink's, with the JDK's archive from {@code --generate-cds-archive} as its base), against
 * the bench's API stub for a few seconds ({@code bench --run-for}, 100 HPAs: the client, informers, Jackson
 * models, workers, reconciler, metrics and health endpoints), ends with {@code -XX:ArchiveClassesAtExit}. The
 * image's entrypoint maps it ({@code -XX:SharedArchiveFile}, {@code -Xshare:auto}: an archive that does not match
 * is ignored, never fatal).
 *
 * <p>JDK 17 uses an archive only with the class path it was written with, the jar's path, size and modification
 * time: the training runs in APP_DIR with the relative class path {@code hpa-controller.jar}, the image's
 * entrypoint runs the same in {@code /app}, and the copy here has the modification time Jib gives every file
 * (one second after the epoch). {@code mvn verify} runs it before Jib:
 * {@code ClassDataArchive RUNTIME_DIR JAR APP_DIR JVM_OPTIONS}; APP_DIR then holds the jar and the archive.
 */
public final class ClassDataArchive {

    static final String JAR = "hpa-controller.jar";
    static final String ARCHIVE = "hpa-controller.jsa";
    /** Jib's default {@code filesModificationTime}: the jar in the image has it. */
    private static final FileTime JIB_FILE_TIME = FileTime.from(Instant.ofEpochSecond(1));

    private ClassDataArchive() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: ClassDataArchive RUNTIME_DIR JAR APP_DIR JVM_OPTIONS");
        }
        Path java = Path.of(args[0], "bin", "java").toAbsolutePath();
        // jlink writes the JDK's archive twice, with and without compressed object pointers; these are off only for a
        // heap of 32 GiB or more, which a controller's pod never has
        Files.deleteIfExists(Path.of(args[0], "lib", "server", "classes_nocoops.jsa"));
        Path app = Path.of(args[2]);
        Files.createDirectories(app);
        Path jar = app.resolve(JAR);
        Files.copy(Path.of(args[1]), jar, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(jar, JIB_FILE_TIME);
        Path archive = app.resolve(ARCHIVE);
        Files.deleteIfExists(archive);

        run(app, List.of(java.toString(), "-jar", JAR, "bench", "--hpas", "100", "--pods-per-hpa", "5", "--duration", "0s",
                "--run-for", "25s", "--jvm-options", args[3].trim() + " -XX:ArchiveClassesAtExit=" + ARCHIVE));
        if (!Files.isRegularFile(archive)) {
            throw new IllegalStateException("the training run wrote no " + archive);
        }
        // -Xshare:on fails when the archive cannot be mapped with this class path
        run(app, List.of(java.toString(), "-Xshare:on", "-XX:SharedArchiveFile=" + ARCHIVE, "-jar", JAR, "--version"));
        System.out.println(archive + ": " + Files.size(archive) / 1024 + " KiB");
    }

    private static void run(Path dir, List<String> command) {
        List<String> cmd = new ArrayList<>(command);
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).inheritIO();
            pb.environment().keySet().removeIf(k -> k.equals("JAVA_TOOL_OPTIONS") || k.equals("JDK_JAVA_OPTIONS"));
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish within 10 minutes");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " exited with " + p.exitValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }
}
