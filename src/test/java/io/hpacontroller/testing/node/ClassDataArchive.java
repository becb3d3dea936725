package io.hpacontroller.testing.node;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The image's class-data archives, written when the image is built: the JDK's ({@code -Xshare:dump}, what jlink's
 * {@code --generate-cds-archive} does, but skipped with the rest when the runtime was linked for another platform), and
 * the controller's (AppCDS): its {@code run}, on the image's own runtime, against
 * the bench's API stub for a few seconds ({@code bench --run-for} from the bench's jar, which runs the controller's jar
 * alone, 100 HPAs: the client, informers, Jackson
 * models, workers, reconciler, metrics and health endpoints), ends with {@code -XX:ArchiveClassesAtExit}. The
 * image's entrypoint maps it ({@code -XX:SharedArchiveFile}, {@code -Xshare:auto}: an archive that does not match
 * is ignored, never fatal).
 *
 * <p>JDK 17 uses an archive only with the class path it was written with, the jar's path, size and modification
 * time: the training runs in APP_DIR with the relative class path {@code hpa-controller.jar}, the image's
 * entrypoint runs the same in {@code /app}, and the copy here has the modification time Jib gives every file
 * (one second after the epoch). {@code mvn verify} runs it before Jib:
 * {@code ClassDataArchive RUNTIME_DIR JAR BENCH_JAR APP_DIR JVM_OPTIONS}; APP_DIR then holds the jar and the archive.
 */
public final class ClassDataArchive {

    static final String JAR = "hpa-controller.jar";
    static final String ARCHIVE = "hpa-controller.jsa";
    /** Jib's default {@code filesModificationTime}: the jar in the image has it. */
    private static final FileTime JIB_FILE_TIME = FileTime.from(Instant.ofEpochSecond(1));

    private ClassDataArchive() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: ClassDataArchive RUNTIME_DIR JAR BENCH_JAR APP_DIR JVM_OPTIONS");
        }
        Path java = Path.of(args[0], "bin", "java").toAbsolutePath();
        Path benchJar = Path.of(args[2]).toAbsolutePath();
        Path app = Path.of(args[3]);
        Files.createDirectories(app);
        Path jar = app.resolve(JAR);
        Files.copy(Path.of(args[1]), jar, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(jar, JIB_FILE_TIME);
        Path archive = app.resolve(ARCHIVE);
        Files.deleteIfExists(archive);
        if (!runsHere(java)) {
            // a runtime linked from another platform's modules (the release's cross-built image): no archive, and the
            // entrypoint's -Xshare:auto runs without one
            System.out.println(java + " does not run on this machine: no class-data archive");
            return;
        }

        // the JDK's archive (lib/server/classes.jsa, from the runtime's lib/classlist), the base of the controller's
        run(app, List.of(java.toString(), "-Xshare:dump"));
        // the controller's jar first: the bench runs the controller from the jar that holds its classes, this copy
        run(app, List.of(java.toString(), "-cp", JAR + File.pathSeparator + benchJar, "io.hpacontroller.bench.BenchMain", "bench",
                "--hpas", "100", "--pods-per-hpa", "5", "--duration", "0s",
                "--run-for", "25s", "--jvm-options", args[4].trim() + " -XX:ArchiveClassesAtExit=" + ARCHIVE));
        if (!Files.isRegularFile(archive)) {
            throw new IllegalStateException("the training run wrote no " + archive);
        }
        // -Xshare:on fails when the archive cannot be mapped with this class path
        run(app, List.of(java.toString(), "-Xshare:on", "-XX:SharedArchiveFile=" + ARCHIVE, "-jar", JAR, "--version"));
        System.out.println(archive + ": " + Files.size(archive) / 1024 + " KiB");
    }

    /**
     * Whether the runtime's launcher is a program for this machine: its ELF class, byte order and machine are those
     * of the launcher of the JVM running this. (Starting it would not tell: the JDK hands a foreign binary to
     * {@code /bin/sh}, which fails like a broken runtime.)
     */
    static boolean runsHere(Path java) throws IOException {
        byte[] ours = elfIdentity(Path.of(System.getProperty("java.home"), "bin", "java"));
        return Arrays.equals(elfIdentity(java), ours);
    }

    /** EI_CLASS, EI_DATA and e_machine of an ELF file. */
    private static byte[] elfIdentity(Path elf) throws IOException {
        try (var in = Files.newInputStream(elf)) {
            byte[] h = in.readNBytes(20);
            if (h.length < 20 || h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') {
                throw new IllegalStateException(elf + " is not an ELF program");
            }
            return new byte[] {h[4], h[5], h[18], h[19]};
        }
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
