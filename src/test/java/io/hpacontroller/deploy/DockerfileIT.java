package io.hpacontroller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38.9: the top-level {@code Dockerfile} makes the image Jib makes. Built with Debian's buildah, offline, as root
 * and with no daemon, from the local base Jib's image was built on here ({@code target/image/host-base.tar}) and the
 * files the pre-integration-test phase left in {@code target/image}; both images must agree on their config (user,
 * entrypoint, cmd, env, working directory) and on every file of {@code /app} and {@code /opt/java} (path, size,
 * digest). An integration test because the build makes those inputs in pre-integration-test; it needs no API server.
 */
class DockerfileIT {

    private static final Path JIB_IMAGE = Path.of("target/image/hpa-controller.tar");
    private static final Path BASE = Path.of("target/image/host-base.tar");

    @Test
    void theDockerfileBuildsTheImageJibBuilds(@TempDir Path storage) throws Exception {
        assertThat(JIB_IMAGE).as("Jib's image (mvn verify builds it first)").exists();
        assertThat(BASE).exists();
        Path built = storage.resolve("dockerfile-image.tar");
        List<String> global = List.of("buildah", "--storage-driver", "vfs", "--root", storage.resolve("root").toString(),
                "--runroot", storage.resolve("run").toString());
        buildah(storage, global, "bud", "--isolation", "chroot", "--pull-never", "--build-arg", "BASE=docker-archive:" + BASE.toAbsolutePath(),
                "-t", "localhost/hpa-controller:dockerfile", "-f", "Dockerfile", ".");
        buildah(storage, global, "push", "localhost/hpa-controller:dockerfile", "docker-archive:" + built);

        DockerArchive jib = new DockerArchive(JIB_IMAGE, DockerfileIT::shipped);
        DockerArchive dockerfile = new DockerArchive(built, DockerfileIT::shipped);

        for (String field : List.of("User", "Entrypoint", "Cmd", "Env", "WorkingDir")) {
            assertThat(dockerfile.config.get(field)).as(field).isEqualTo(jib.config.get(field));
        }
        assertThat(text(jib.config.get("User"))).isEqualTo("65532:65532");
        assertThat(text(jib.config.get("Env"))).contains("JDK_JAVA_OPTIONS=-XX:+UseSerialGC");
        assertThat(jib.files).containsKeys("app/hpa-controller.jar", "app/hpa-controller.jsa", "opt/java/bin/java", "opt/java/lib/server/classes.jsa");
        assertThat(dockerfile.files).as("the files of /app and /opt/java: path -> size sha256").isEqualTo(jib.files);
    }

    private static boolean shipped(String path) {
        return path.startsWith("app/") || path.startsWith("opt/java/");
    }

    private static String text(JsonNode node) {
        return node == null ? "null" : node.isTextual() ? node.asText() : node.toString();
    }

    private static void buildah(Path dir, List<String> global, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(global);
        command.addAll(List.of(args));
        Path log = Files.createTempFile(dir, "buildah", ".log");
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("buildah is not installed: apt-get install -y buildah (" + e.getMessage() + ")", e);
        }
        assertThat(p.waitFor(15, TimeUnit.MINUTES)).as("buildah %s finished", args[0]).isTrue();
        assertThat(p.exitValue()).as("%s:%n%s", command, Files.readString(log)).isZero();
    }
}
