package io.hpacontroller.testing.kube;

import io.hpacontroller.cli.Main;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Our controller as a process of its own: {@code java -jar target/hpa-controller.jar run --kubeconfig FILE ...},
 * the jar that ships (the integration tests run after {@code package}), or {@code java -cp <the test classpath>
 * io.hpacontroller.cli.Main run ...} where it has not been built (an IT run from an IDE), with the product's
 * logging configuration. {@link ChildProcess#kill()} stops it hard (SIGKILL: no shutdown hook, the lease
 * is not released), {@link ChildProcess#stop} gracefully (SIGTERM).
 */
public final class ControllerProcess {

    private static final Path SHADED_JAR = Path.of("target", "hpa-controller.jar");

    private ControllerProcess() {
    }

    /**
     * Starts {@code run} with the kubeconfig and flags; {@code POD_NAME} (the Lease holder identity) is
     * {@code pod}. The log goes to {@code log}.
     */
    public static ChildProcess start(String pod, Path kubeconfig, Path log, String... flags) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        if (Files.isRegularFile(SHADED_JAR)) {
            cmd.addAll(List.of("-jar", SHADED_JAR.toString()));
        } else {
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        }
        cmd.addAll(List.of("run", "--kubeconfig", kubeconfig.toString(), "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0"));
        cmd.addAll(List.of(flags));
        return ChildProcess.start("controller " + pod, cmd, log, Map.of("POD_NAME", pod));
    }
}
