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

    /** The jar that ships; {@code -Dhpa-controller.jar=PATH} runs another build (e.g. an older one, to see a test fail before a fix). */
    private static final Path SHADED_JAR = Path.of(System.getProperty("hpa-controller.jar", "target/hpa-controller.jar"));
    /** The JVM options of a test replica unless told otherwise. */
    private static final List<String> TEST_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private ControllerProcess() {
    }

    /**
     * Starts {@code run} with the kubeconfig and flags; {@code POD_NAME} (the Lease holder identity) is
     * {@code pod}. The log goes to {@code log}.
     */
    public static ChildProcess start(String pod, Path kubeconfig, Path log, String... flags) {
        return start(TEST_JVM, pod, kubeconfig, log, flags);
    }

    /** {@link #start(String, Path, Path, String...)} with these JVM options (e.g. the chart's, with its heap). */
    public static ChildProcess start(List<String> jvmOptions, String pod, Path kubeconfig, Path log, String... flags) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(jvmOptions);
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
