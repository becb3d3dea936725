package io.hpacontroller.bench;

import io.hpacontroller.cli.Main;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The controller as it runs in a pod, in a child JVM: {@code java OPTIONS -cp CLASSPATH Main run} with
 * leader election ({@link #controllerClassPath}), against the {@link ApiStub}, its health and metrics endpoints on free loopback
 * ports, its output in a log file. Its memory and CPU are read from /proc ({@link ProcessMeter}).
 */
final class RunProcess implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final int healthPort;
    private final int metricsPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final ProcessMeter meter;

    private RunProcess(Process process, Path log, int healthPort, int metricsPort) {
        this.process = process;
        this.log = log;
        this.healthPort = healthPort;
        this.metricsPort = metricsPort;
        this.meter = new ProcessMeter(process.pid());
    }

    /**
     * Starts {@code run} against the stub on {@code stubPort}.
     *
     * @param jvmOptions the JVM's options, as the image's entrypoint gives them
     * @param dir        where the kubeconfig and the log go
     */
    static RunProcess start(List<String> jvmOptions, int stubPort, int workers, Duration syncPeriod, Path dir) throws IOException {
        return start(jvmOptions, stubPort, workers, syncPeriod, dir, null, -1);
    }

    /**
     * Starts {@code run}, with {@code --sharding} as the replica {@code identity} (its $POD_NAME, as in a pod) when one is
     * given, else electing a leader; pinned to the core {@code cpu} ({@code taskset -c}, which execs the JVM: the same
     * process, measured as one) when it is not negative.
     */
    static RunProcess start(List<String> jvmOptions, int stubPort, int workers, Duration syncPeriod, Path dir, String identity, int cpu)
            throws IOException {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: stub
                  cluster:
                    server: http://127.0.0.1:%d
                users:
                - name: bench
                  user:
                    token: bench
                contexts:
                - name: stub
                  context:
                    cluster: stub
                    user: bench
                current-context: stub
                """.formatted(stubPort));
        int health = freePort();
        int metrics = freePort();
        List<String> cmd = new ArrayList<>();
        if (cpu >= 0) {
            cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", controllerClassPath(), Main.class.getName(), "run",
                "--kubeconfig=" + kubeconfig, "--hpa-apis=autoscaling/v2", "--leader-elect=true", "--leader-elect-resource-namespace=bench",
                "--horizontal-pod-autoscaler-sync-period=" + syncPeriod.toMillis() + "ms",
                "--concurrent-horizontal-pod-autoscaler-syncs=" + workers,
                "--health-probe-bind-address=127.0.0.1:" + health, "--metrics-bind-address=127.0.0.1:" + metrics,
                // plain HTTP, read by this process: the stub reviews no tokens, and the figures stay comparable with earlier runs
                "--metrics-secure=false"));
        if (identity != null) {
            cmd.add("--sharding");
        }
        Path log = dir.resolve("controller.log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("HPA_CONTROLLER_") || k.equals("JAVA_TOOL_OPTIONS") || k.equals("JDK_JAVA_OPTIONS") || k.equals("KUBECONFIG") || k.equals("POD_NAME"));
        if (identity != null) {
            pb.environment().put("POD_NAME", identity);
        }
        return new RunProcess(pb.start(), log, health, metrics);
    }

    /**
     * The controller's jar alone when the bench runs from its jar ({@link BenchMain}), as the image runs it: no stub
     * libraries on its class path. Named relative to the working directory, as the image's entrypoint names it in
     * {@code /app}: a class-data archive written by such a run maps only with the class path it was written with
     * (testing.node.ClassDataArchive). Run from classes (the tests), this JVM's class path.
     */
    static String controllerClassPath() {
        try {
            Path source = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(source) ? Path.of("").toAbsolutePath().relativize(source).toString() : System.getProperty("java.class.path");
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the controller's classes are at no path: " + e.getMessage(), e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Whether /readyz answers 200 (the informers have synced). */
    boolean ready() {
        return get(healthPort, "/readyz", Duration.ofSeconds(5)) != null;
    }

    /**
     * The Prometheus text of /metrics, or null when it cannot be read. Its time series grow with the HPAs: at 30,000 on a
     * loaded machine one read took longer than 5 s.
     */
    String metrics() {
        return get(metricsPort, "/metrics", Duration.ofSeconds(60));
    }

    /**
     * The controller's reconciles so far ({@code horizontal_pod_autoscaler_controller_reconciliations_total}) and its CPU
     * seconds midway through that read (a slow read moves the counter while it is on its way). A read that fails ends the
     * run: counted as 0, the window's reconciles would be wrong.
     */
    double[] reconcilesAndCpu() {
        double before = meter.cpuSeconds();
        String text = metrics();
        double after = meter.cpuSeconds();
        if (text == null) {
            throw new IllegalStateException("cannot read the controller's /metrics within 60 s; its last output:\n" + tail(20));
        }
        return new double[] {PrometheusText.sum(text, "horizontal_pod_autoscaler_controller_reconciliations_total", ""), (before + after) / 2};
    }

    private String get(int port, String path, Duration timeout) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The last lines of the controller's output. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /**
     * SIGTERM, as the kubelet stops a pod; SIGKILL when it has not ended 90 s later. More than a pod's 30 s: the image's
     * class-data training run writes its archive at exit, which takes longer than 20 s on a loaded machine.
     */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(90, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
