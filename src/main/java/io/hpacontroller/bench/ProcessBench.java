package io.hpacontroller.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The controller as a pod runs it ({@link RunProcess}: {@code run} in a JVM of its own, with the image's
 * JVM options and leader election) against the {@link ApiStub}, from process start to steady state,
 * measured from outside: /proc for memory and CPU, the stub for when each HPA's metrics were first
 * queried and how many queries each second saw, the controller's /metrics for its heap and reconciles.
 *
 * <p>The steady window starts one sync period after every HPA was reconciled once (the start-up's
 * catch-up is over) and ends when the run ends.
 */
final class ProcessBench {

    /** What the informers and the lease cost, not the reconciles: left out of the requests per reconcile. */
    private static final Set<String> NOT_RECONCILES = Set.of("list", "watch", "lease", "access-review", "other");
    /** How often the run is sampled. */
    static final long SAMPLE_MILLIS = 100;

    private final int hpas;
    private final int workers;
    private final Duration syncPeriod;
    private final Duration runFor;
    private final List<String> jvmOptions;
    private final PrintWriter log;
    /** The core the controller process is pinned to; -1: none. */
    private int cpu = -1;

    ProcessBench(int hpas, int workers, Duration syncPeriod, Duration runFor, List<String> jvmOptions, PrintWriter log) {
        this.hpas = hpas;
        this.workers = workers;
        this.syncPeriod = syncPeriod;
        this.runFor = runFor;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.log = log;
    }

    /** Pins the controller process to core {@code cpu} ({@code bench --pin-cores}). */
    ProcessBench pinnedTo(int cpu) {
        this.cpu = cpu;
        return this;
    }

    /** A moment of the run: seconds since the process started, its CPU seconds, what the stub and /metrics said. */
    private record Snapshot(double seconds, double cpu, Map<String, Long> requests, double reconciles) {
    }

    Map<String, String> run(StubProcess stub) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("hpa-controller-bench-");
        Map<String, String> f = new LinkedHashMap<>();
        f.put("jvm_options", String.join(" ", jvmOptions));
        f.put("sync_period_seconds", String.format("%.1f", syncPeriod.toMillis() / 1000.0));
        long startMillis = System.currentTimeMillis();
        long start = System.nanoTime();
        RunProcess controller = RunProcess.start(jvmOptions, stub.port, workers, syncPeriod, dir, null, cpu);
        try {
            double ready = -1;
            StartUpFigures startUp = new StartUpFigures(hpas, syncPeriod, controller.meter);
            Snapshot steadyStart = null;
            long deadline = start + runFor.toNanos();
            while (System.nanoTime() < deadline) {
                if (!controller.isAlive()) {
                    throw new IllegalStateException("the controller exited; its last output:\n" + controller.tail(40));
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                if (ready < 0 && controller.ready()) {
                    ready = seconds;
                    progress(String.format("ready (informers synced) after %.1f s", ready));
                }
                if (startUp.sample(seconds, () -> {
                    long[] first = stub.firstQueries();
                    return new StartUpFigures.FirstReconciles(first[0], (first[1] - startMillis) / 1000.0);
                })) {
                    progress(String.format("every HPA reconciled once %.1f s after the process started", startUp.allReconciled()));
                }
                if (steadyStart == null && startUp.steadyAt(seconds)) {
                    steadyStart = snapshot(controller, stub, seconds);
                    progress(String.format("steady from %.1f s", seconds));
                }
                Thread.sleep(SAMPLE_MILLIS);
            }
            Snapshot end = snapshot(controller, stub, (System.nanoTime() - start) / 1e9);
            String metrics = controller.metrics();
            ProcessMeter.Memory memory = controller.meter.memory();
            if (startUp.allReconciled() < 0) {
                progress("not every HPA was reconciled within " + runFor.toSeconds() + " s; the controller's last output:\n" + controller.tail(20));
            }
            f.put("seconds_to_ready", StartUpFigures.seconds(ready));
            f.putAll(startUp.figures(end.seconds(), end.cpu(), memory));
            f.put("rss_anon_mib_end", StartUpFigures.mib(memory.anonKib()));
            f.put("rss_file_mib_end", StartUpFigures.mib(memory.fileKib()));
            f.put("heap_mib_used_end", StartUpFigures.mib(PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\"") / 1024));
            f.put("heap_mib_committed_end", StartUpFigures.mib(PrometheusText.sum(metrics, "jvm_memory_committed_bytes", "area=\"heap\"") / 1024));
            f.put("nonheap_mib_used_end", StartUpFigures.mib(PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"nonheap\"") / 1024));
            f.put("threads_end", Integer.toString(memory.threads()));
            steady(f, steadyStart, end);
            f.putAll(QueriesPerSecond.figures(stub.queriesPerSecond(), startMillis / 1000, (startMillis + (long) (end.seconds() * 1000)) / 1000,
                    steadyStart == null ? -1 : startMillis / 1000 + (long) Math.ceil(steadyStart.seconds())));
            return f;
        } finally {
            controller.close();
            delete(dir);
        }
    }

    /** Deletes a run's directory (kubeconfigs, logs). */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The requests between two counts of the stub that a reconcile makes (not the informers' nor the Leases'). */
    static long reconcileRequests(Map<String, Long> from, Map<String, Long> to) {
        return to.entrySet().stream().filter(e -> !NOT_RECONCILES.contains(e.getKey()))
                .mapToLong(e -> e.getValue() - from.getOrDefault(e.getKey(), 0L)).sum();
    }

    private Snapshot snapshot(RunProcess controller, StubProcess stub, double seconds) throws IOException {
        double[] reconcilesAndCpu = controller.reconcilesAndCpu();
        return new Snapshot(seconds, reconcilesAndCpu[1], stub.counts(), reconcilesAndCpu[0]);
    }

    /** Reconciles, CPU and requests per reconcile between the start of the steady window and the end. */
    private static void steady(Map<String, String> f, Snapshot from, Snapshot to) {
        if (from == null) {
            f.put("steady_reconciles_per_second", "n/a");
            f.put("steady_cpu_ms_per_reconcile", "n/a");
            f.put("steady_api_requests_per_reconcile", "n/a");
            return;
        }
        double reconciles = to.reconciles() - from.reconciles();
        long requests = reconcileRequests(from.requests(), to.requests());
        f.putAll(StartUpFigures.steady(to.seconds() - from.seconds(), reconciles, to.cpu() - from.cpu(), requests));
    }

    private void progress(String message) {
        log.println("# " + message);
        log.flush();
    }
}
