package io.hpacontroller.testing.kube;

import io.hpacontroller.testing.Waits;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The programs a control plane needs, found on this machine: etcd (Debian's {@code etcd-server}, on the
 * PATH), and kube-apiserver and kube-controller-manager unpacked once from the {@code .xz} files of
 * {@code shared/kube} into {@code target/kube-bin} (checked against the sha256 in that directory's
 * README). Nothing is downloaded. Whatever is missing fails the test with what to install.
 *
 * <p>The {@code shared/kube} directory is {@code -Dkube.binaries=DIR}, {@code $KUBE_BINARIES}, or the
 * first {@code shared/kube} found beside the project directory or one of its parents.
 */
final class KubeBinaries {

    record Programs(Path etcd, Path apiServer, Path controllerManager) {
    }

    private static Programs programs;

    private KubeBinaries() {
    }

    static synchronized Programs locate() {
        if (programs == null) {
            Path etcd = onPath("etcd").orElseThrow(() -> new IllegalStateException(
                    "etcd is not installed: the tests against a real API server need it (Debian: apt-get install -y etcd-server)"));
            Path shared = sharedKubeDir();
            Path bin = Path.of(System.getProperty("user.dir"), "target", "kube-bin");
            programs = new Programs(etcd, unpack(shared, bin, "kube-apiserver"), unpack(shared, bin, "kube-controller-manager"));
        }
        return programs;
    }

    private static java.util.Optional<Path> onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : (path + ":/usr/sbin:/usr/bin").split(":")) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return java.util.Optional.of(p);
            }
        }
        return java.util.Optional.empty();
    }

    private static Path sharedKubeDir() {
        String configured = System.getProperty("kube.binaries", System.getenv("KUBE_BINARIES"));
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured);
            if (!Files.isRegularFile(dir.resolve("kube-apiserver.xz"))) {
                throw new IllegalStateException(dir + " (from -Dkube.binaries / $KUBE_BINARIES) has no kube-apiserver.xz");
            }
            return dir;
        }
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            Path candidate = d.resolve("shared").resolve("kube");
            if (Files.isRegularFile(candidate.resolve("kube-apiserver.xz"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("kube-apiserver.xz and kube-controller-manager.xz (Kubernetes v1.26.1) were not found: "
                + "put the shared/kube directory beside the project (or a parent directory), or point -Dkube.binaries=DIR "
                + "or $KUBE_BINARIES at it");
    }

    private static Path unpack(Path shared, Path bin, String name) {
        Path xz = shared.resolve(name + ".xz");
        Path target = bin.resolve(name);
        try {
            if (Files.isExecutable(target) && Files.getLastModifiedTime(target).compareTo(Files.getLastModifiedTime(xz)) >= 0) {
                return target;
            }
            if (onPath("xz").isEmpty()) {
                throw new IllegalStateException("xz is not installed: it unpacks " + xz + " (Debian: apt-get install -y xz-utils)");
            }
            Files.createDirectories(bin);
            Path tmp = Files.createTempFile(bin, name, ".tmp");
            Process p = new ProcessBuilder("xz", "-dc", xz.toString()).redirectOutput(tmp.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            if (!p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("xz -dc " + xz + " failed");
            }
            String expected = expectedSha256(shared, name);
            String actual = sha256(tmp);
            if (expected != null && !expected.equals(actual)) {
                Files.delete(tmp);
                throw new IllegalStateException(xz + " unpacks to sha256 " + actual + ", its README says " + expected);
            }
            tmp.toFile().setExecutable(true);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while unpacking " + xz);
        }
    }

    private static String expectedSha256(Path shared, String name) throws IOException {
        Path readme = shared.resolve("README.md");
        if (!Files.isRegularFile(readme)) {
            return null;
        }
        Matcher m = Pattern.compile("`" + Pattern.quote(name) + "\\.xz`\\s*\\|\\s*([0-9a-f]{64})").matcher(Files.readString(readme));
        return m.find() ? m.group(1) : null;
    }

    private static String sha256(Path file) throws IOException {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
