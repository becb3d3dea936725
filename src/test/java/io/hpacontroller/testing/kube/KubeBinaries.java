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
 * The programs a control plane and its node need, found on this machine. Nothing is downloaded; whatever
 * is missing fails the test with what to install. Two places, in this order:
 * <ol>
 * <li>{@code $KUBEBUILDER_ASSETS} (or {@code -Dkubebuilder.assets=DIR}), envtest's convention: a directory of
 *     unpacked binaries, {@code etcd} and {@code kube-apiserver} as {@code setup-envtest} installs them, and
 *     {@code kube-controller-manager}, {@code kube-scheduler} and {@code kubelet} from a Kubernetes release put
 *     beside them (README, "Tests against a real API server").</li>
 * <li>The {@code .xz} files of {@code shared/kube} (Kubernetes v1.26.1), unpacked once into {@code target/kube-bin}
 *     and checked against the sha256 in that directory's README, with etcd from the PATH (Debian's
 *     {@code etcd-server}). The directory is {@code -Dkube.binaries=DIR}, {@code $KUBE_BINARIES}, or the first
 *     {@code shared/kube} found beside the project directory or one of its parents.</li>
 * </ol>
 */
final class KubeBinaries {

    /** Where a Kubernetes program comes from: a path, or a reason it cannot be had here. */
    record Programs(Path etcd, Path apiServer, Path controllerManager, Source source) {
        /** kube-scheduler (for a real node). */
        Path scheduler() {
            return source.program("kube-scheduler");
        }

        /** The kubelet (for a real node). */
        Path kubelet() {
            return source.program("kubelet");
        }
    }

    private interface Source {
        Path program(String name);
    }

    private static Programs programs;

    private KubeBinaries() {
    }

    static synchronized Programs locate() {
        if (programs == null) {
            String assets = System.getProperty("kubebuilder.assets", System.getenv("KUBEBUILDER_ASSETS"));
            Source source;
            Path etcd;
            if (assets != null && !assets.isBlank()) {
                Path dir = Path.of(assets);
                source = name -> {
                    Path p = dir.resolve(name);
                    if (!Files.isExecutable(p)) {
                        throw new IllegalStateException(p + " is missing: $KUBEBUILDER_ASSETS (" + dir + ") must hold etcd and kube-apiserver "
                                + "(setup-envtest use) and, for the tests that need them, kube-controller-manager, kube-scheduler and kubelet "
                                + "of the same Kubernetes release (README, \"Tests against a real API server\")");
                    }
                    return p;
                };
                etcd = source.program("etcd");
            } else {
                etcd = onPath("etcd").orElseThrow(() -> new IllegalStateException(
                        "etcd is not installed: the tests against a real API server need it (Debian: apt-get install -y etcd-server), "
                                + "or set $KUBEBUILDER_ASSETS to a directory of Kubernetes binaries"));
                Path shared = sharedKubeDir();
                Path bin = Path.of(System.getProperty("user.dir"), "target", "kube-bin");
                java.util.Map<String, Path> unpacked = new java.util.concurrent.ConcurrentHashMap<>();
                source = name -> unpacked.computeIfAbsent(name, n -> unpack(shared, bin, n));
            }
            programs = new Programs(etcd, source.program("kube-apiserver"), source.program("kube-controller-manager"), source);
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
                + "or $KUBE_BINARIES at it, or set $KUBEBUILDER_ASSETS to a directory of unpacked binaries");
    }

    private static Path unpack(Path shared, Path bin, String name) {
        Path xz = shared.resolve(name + ".xz");
        Path target = bin.resolve(name);
        if (!Files.isRegularFile(xz)) {
            throw new IllegalStateException(xz + " is missing (or set $KUBEBUILDER_ASSETS to a directory holding " + name + ")");
        }
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
