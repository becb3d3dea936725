package io.hpacontroller.testing.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The image's base layer built from this machine, where no base image can be pulled: the C libraries a
 * Java runtime's programs and libraries load (found with {@code ldd}), the dynamic loader, a
 * {@code nonroot} user 65532 and a {@code /tmp}. The release builds the same image on a distroless base
 * that holds the same libraries (pom.xml, {@code image.base}); only this layer differs.
 *
 * <p>{@code mvn verify} runs it before Jib (pom.xml, profile {@code host-base}):
 * {@code HostBaseImage RUNTIME_DIR OUT_TAR}.
 */
public final class HostBaseImage {

    static final String REFERENCE = "registry.local/host-base:1";
    private static final Pattern LDD_LINE = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");

    private HostBaseImage() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: HostBaseImage RUNTIME_DIR OUT_TAR");
        }
        Path runtime = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Set<Path> libraries = librariesOf(runtime);
        ImageArchive base = new ImageArchive(REFERENCE);
        libraries.forEach(base::hostFile);
        base.file("/etc/passwd", "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
                .getBytes(StandardCharsets.US_ASCII), 0644)
                .file("/etc/group", "root:x:0:\nnonroot:x:65532:\n".getBytes(StandardCharsets.US_ASCII), 0644)
                .directory("/home/nonroot", 0755)
                .directory("/tmp", 01777)
                .user("65532:65532")
                .writeTo(out);
        System.out.println(out + ": " + REFERENCE + " with " + libraries.size() + " libraries for " + runtime);
    }

    /** The shared libraries (and the loader) that the runtime's ELF files need from the system. */
    static Set<Path> librariesOf(Path runtime) {
        Set<Path> found = new TreeSet<>();
        try (var files = Files.walk(runtime)) {
            List<Path> elf = new ArrayList<>();
            for (Path p : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(p) && isElf(p)) {
                    elf.add(p);
                }
            }
            for (Path p : elf) {
                for (String line : ldd(p)) {
                    Matcher m = LDD_LINE.matcher(line);
                    if (m.find() && !m.group(1).startsWith(runtime.toAbsolutePath().toString())) {
                        found.add(Path.of(m.group(1)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (found.stream().noneMatch(p -> p.getFileName().toString().startsWith("libc.so"))) {
            throw new IllegalStateException("ldd found no libc for the programs of " + runtime);
        }
        return found;
    }

    private static boolean isElf(Path p) throws IOException {
        try (var in = Files.newInputStream(p)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
        }
    }

    private static List<String> ldd(Path file) {
        try {
            Process p = new ProcessBuilder("ldd", file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("ldd " + file + " did not finish");
            }
            return out.lines().toList(); // "not a dynamic executable" lists nothing
        } catch (IOException e) {
            throw new UncheckedIOException("ldd (Debian: libc-bin) is needed to find the libraries of " + file, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }
}
