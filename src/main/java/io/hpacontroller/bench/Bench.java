package io.hpacontroller.bench;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.ModelKinds;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.controller.Ticker;
import io.hpacontroller.controller.WorkQueue;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.reconcile.ControllerConfig;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the real controller (informers, queue, workers, reconciler, REST clients) against an
 * {@link ApiStub} in a child JVM holding N HPAs, N Deployments and N x M pods, and measures it.
 *
 * <p>Steps: the HPA informer syncs, then the Pod informer (heap is measured after a full GC after
 * each, to split the heap between HPAs and pods); the workers start with every HPA due again as soon
 * as it was reconciled (a 1 ms period: the queue never runs dry and its pacing, twice the HPAs' average
 * rate, never binds, so the rate measured is the controller's capacity); after a warm-up in which every
 * HPA was reconciled twice (the first sync writes each status), reconciles are measured for the given
 * duration. Then the paced throughput at the sync period ({@link #measurePaced}).
 */
public final class Bench {

    /** The figures, in the order they are printed. */
    public record Result(Map<String, String> figures) {
        public void print(PrintWriter out) {
            figures.forEach((k, v) -> out.println(k + ": " + v));
            out.flush();
        }
    }

    /**
     * The JVM options of the image (the image's {@code JDK_JAVA_OPTIONS}, the chart's default
     * {@code jvmOptions}; ImageTest and ChartTest keep the three equal).
     */
    public static final List<String> IMAGE_JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50", "-Xms32m", "-Xmn8m", "-XX:MinHeapFreeRatio=20", "-XX:MaxHeapFreeRatio=40", "-Xss256k", "-XX:MaxMetaspaceSize=64m", "-XX:ReservedCodeCacheSize=32m", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError", "-Djava.io.tmpdir=/tmp");

    /** Whether this system shows processes' memory and CPU under /proc (Linux), which the controller process's figures need. */
    public static boolean canMeasureProcesses() {
        return ProcessMeter.available();
    }

    private final int hpas;
    private final int podsPerHpa;
    private final Duration duration;
    private final int workers;
    private final Duration syncPeriod;
    private final Duration runFor;
    private final List<String> jvmOptions;
    private final PrintWriter log;
    private int replicas = 1;
    private boolean baseline;
    private Duration baselineSyncPeriod;
    private boolean pinCores;
    private boolean othersAsLeases;

    /**
     * @param duration   how long the capacity is measured (zero: not at all)
     * @param syncPeriod the sync period of the controller process
     * @param runFor     how long the controller process runs (zero: not at all)
     * @param jvmOptions the controller process's JVM options
     */
    public Bench(int hpas, int podsPerHpa, Duration duration, int workers, Duration syncPeriod, Duration runFor, List<String> jvmOptions,
                 PrintWriter log) {
        this.hpas = hpas;
        this.podsPerHpa = podsPerHpa;
        this.duration = duration;
        this.workers = workers;
        this.syncPeriod = syncPeriod;
        this.runFor = runFor;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.log = log;
    }

    /**
     * {@code --replicas N} (N >= 2): N controller processes with {@code --sharding} against one stub instead of one
     * electing a leader (the in-process capacity is not measured); with {@code baseline}, a single replica's run against
     * a stub of its own first, and each replica's CPU per reconcile against that one's.
     */
    public Bench withReplicas(int replicas, boolean baseline) {
        this.replicas = replicas;
        this.baseline = baseline;
        return this;
    }

    /** With {@link #withReplicas} and a baseline: the one process's sync period (null: the replicas'). */
    public Bench baselineSyncPeriod(Duration period) {
        this.baselineSyncPeriod = period;
        return this;
    }

    /**
     * {@code --pin-cores}: each controller process on a core of its own (replica i on core i-1, the baseline on core 0),
     * as a pod with a CPU limit of one on a node of its own sees one CPU; the stub runs on every core.
     */
    public Bench pinCores(boolean pinCores) {
        this.pinCores = pinCores;
        return this;
    }

    /**
     * {@code --others-as-leases}: of the N replicas only replica 1 runs, the others are members' Leases the stub keeps
     * live, so that one replica is measured with the machine to itself, as a pod on a node of its own.
     */
    public Bench othersAsLeases(boolean othersAsLeases) {
        this.othersAsLeases = othersAsLeases;
        return this;
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private void progress(String message) {
        log.println("# " + message);
        log.flush();
    }

    public Result run() throws Exception {
        if (replicas > 1) {
            return runReplicas();
        }
        progress("starting the API stub with " + hpas + " HPAs and " + (long) hpas * podsPerHpa + " pods");
        try (StubProcess stub = new StubProcess(hpas, podsPerHpa)) {
            Map<String, String> f = world();
            if (!runFor.isZero()) {
                progress("the controller process: run, for " + runFor.toSeconds() + " s from its start");
                f.putAll(new ProcessBench(hpas, workers, syncPeriod, runFor, jvmOptions, log).run(stub));
            }
            if (duration.isZero()) {
                return new Result(f);
            }
            progress("capacity: the controller in this JVM, every HPA due again as soon as it was reconciled");
            Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + stub.port)
                    .withRequestRetryBackoffLimit(0).withRequestTimeout(30_000).withConnectionTimeout(5_000)
                    .withMaxConcurrentRequests(Math.max(64, 4 * workers)).withMaxConcurrentRequestsPerHost(Math.max(8, 2 * workers))
                    .build();
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).withKubernetesSerialization(ModelKinds.serialization()).build()) {
                f.putAll(measure(client, stub));
                progress("paced: the controller in this JVM at a " + syncPeriod.toSeconds() + " s period, every HPA due at once");
                f.putAll(measurePaced(client));
                return new Result(f);
            }
        }
    }

    private Map<String, String> world() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("hpas", Integer.toString(hpas));
        f.put("pods", Long.toString((long) hpas * podsPerHpa));
        f.put("workers", Integer.toString(workers));
        f.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        return f;
    }

    /** The baseline (one replica, its figures as {@code baseline.*}), then the N replicas against a stub of their own. */
    private Result runReplicas() throws Exception {
        Map<String, String> f = world();
        f.put("cpu_pinning", pinCores ? "each controller process on a core of its own (taskset -c: replica i on core i-1, the baseline on core 0)"
                : "none (every process on every core)");
        double baselineMs = Double.NaN;
        if (baseline) {
            progress("baseline: one controller process (leader election) against " + hpas + " HPAs, for " + runFor.toSeconds() + " s");
            try (StubProcess stub = new StubProcess(hpas, podsPerHpa)) {
                Duration period = baselineSyncPeriod == null ? syncPeriod : baselineSyncPeriod;
                Map<String, String> one = new ProcessBench(hpas, workers, period, runFor, jvmOptions, log).pinnedTo(pinCores ? 0 : -1).run(stub);
                one.forEach((k, v) -> f.put("baseline." + k, v));
                f.put("baseline.load_average_1m_end", String.format("%.2f", ProcessMeter.loadAverage()));
                baselineMs = one.get("steady_cpu_ms_per_reconcile").equals("n/a") ? Double.NaN : Double.parseDouble(one.get("steady_cpu_ms_per_reconcile"));
            }
        }
        progress((othersAsLeases ? "1 controller process with --sharding, its " + (replicas - 1) + " other members as Leases only,"
                : replicas + " controller processes with --sharding") + " against " + hpas + " HPAs, for " + runFor.toSeconds() + " s");
        try (StubProcess stub = new StubProcess(hpas, podsPerHpa)) {
            ReplicasBench.Result r = new ReplicasBench(replicas, hpas, workers, syncPeriod, runFor, jvmOptions, log).pinned(pinCores)
                    .othersAsLeases(othersAsLeases).run(stub);
            f.putAll(r.figures());
            f.put("load_average_1m_end", String.format("%.2f", ProcessMeter.loadAverage()));
            if (baseline) {
                f.put("replica_cpu_per_reconcile_vs_baseline", ReplicaFigures.againstBaseline(r.shares(), baselineMs));
            }
        }
        return new Result(f);
    }

    /** How long the in-process controller's informers may take to list the stub's objects. */
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(10);

    private static void waitUntil(long deadline, String failure) throws InterruptedException {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(failure + " within " + SYNC_TIMEOUT.toMinutes() + " minutes");
        }
        Thread.sleep(10);
    }

    private Map<String, String> measure(KubernetesClient client, StubProcess stub) throws Exception {
        // as run by default: each HPA's history kept in the cluster (restored at its first sync, written when it changes)
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), Duration.ofMillis(1), workers, List.of(), Duration.ofSeconds(30))
                .withPersistHistory(true);
        HorizontalController controller = new HorizontalController(client, options, Clock.systemUTC(), WriteGate.alwaysOpen());
        try {
            long base = heapAfterGc();
            long syncStart = System.nanoTime();
            controller.startHpaInformers();
            long syncDeadline = syncStart + SYNC_TIMEOUT.toNanos();
            while (!controller.hpaInformersSynced()) {
                waitUntil(syncDeadline, "the HPA informers did not sync");
            }
            long hpaSynced = System.nanoTime();
            long withHpas = heapAfterGc();
            long podStart = System.nanoTime();
            controller.startPodInformers();
            while (!controller.isSynced()) {
                waitUntil(syncDeadline, "the Pod informers did not sync");
            }
            long podSynced = System.nanoTime();
            long withPods = heapAfterGc();
            double syncSeconds = ((hpaSynced - syncStart) + (podSynced - podStart)) / 1e9;
            progress(String.format("informers synced in %.1f s (%d HPAs, %d pods cached)", syncSeconds, controller.hpaCount(), controller.podCount()));

            Window w = new Window();
            controller.addListener(w);
            controller.startWorkers();

            progress("warming up: every HPA reconciled twice");
            awaitSyncs(w, 2, "the warm-up");
            Map<String, Long> before = stub.counts();
            progress("measuring for " + duration.toSeconds() + " s");
            w.measuring = true;
            long start = System.nanoTime();
            Thread.sleep(duration.toMillis());
            w.measuring = false;
            long elapsed = System.nanoTime() - start;
            Map<String, Long> after = stub.counts();
            long steady = heapAfterGc();
            Map<String, Long> delta = new TreeMap<>();
            after.forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0L)));
            progress("requests served while measuring: " + delta);

            long n = w.reconciles.get();
            double rate = n / (elapsed / 1e9);
            // what a reconcile asks for: everything but the informers' lists and watches
            long served = delta.entrySet().stream().filter(e -> !e.getKey().equals("list") && !e.getKey().equals("watch"))
                    .mapToLong(Map.Entry::getValue).sum();
            Map<String, String> f = new LinkedHashMap<>();
            f.put("informer_sync_seconds", String.format("%.2f", syncSeconds));
            f.put("reconciles", Long.toString(n));
            f.put("reconciles_per_second", String.format("%.0f", rate));
            f.put("seconds_to_reconcile_all", String.format("%.2f", rate == 0 ? Double.POSITIVE_INFINITY : hpas / rate));
            f.put("reconcile_p50_ms", ms(w.total.getValueAtPercentile(50)));
            f.put("reconcile_p99_ms", ms(w.total.getValueAtPercentile(99)));
            f.put("own_cpu_p50_ms", ms(w.cpu.getValueAtPercentile(50)));
            f.put("own_cpu_p99_ms", ms(w.cpu.getValueAtPercentile(99)));
            f.put("api_wait_p50_ms", ms(w.api.getValueAtPercentile(50)));
            f.put("api_wait_p99_ms", ms(w.api.getValueAtPercentile(99)));
            f.put("api_requests_per_reconcile", String.format("%.2f", n == 0 ? 0 : (double) w.apiCalls.get() / n));
            f.put("api_requests_per_reconcile_server_side", String.format("%.2f", n == 0 ? 0 : (double) served / n));
            f.put("reconcile_errors", Long.toString(w.errors.get()));
            f.put("heap_mib_after_gc", mib(steady));
            f.put("heap_mib_per_1000_hpas", mib((withHpas - base) * 1000.0 / hpas));
            f.put("heap_mib_per_10000_pods", mib((withPods - withHpas) * 10000.0 / ((double) hpas * podsPerHpa)));
            f.put("heap_kib_per_pod", String.format("%.2f", (withPods - withHpas) / 1024.0 / ((double) hpas * podsPerHpa)));
            f.put("max_heap_mib", mib(Runtime.getRuntime().maxMemory()));
            return f;
        } finally {
            controller.stop(Duration.ofSeconds(5));
        }
    }

    /**
     * The paced throughput: a controller at the sync period ({@code --sync-period}) syncs every HPA once, then its ticker
     * is moved a period ahead, so that every HPA is due at once, as after a stall. The queue hands such a backlog out
     * at most {@link WorkQueue#PACE} times as fast as the HPAs are due on average; the figure is the rate at which
     * the backlog was synced, the limit what the pacing allows.
     */
    private Map<String, String> measurePaced(KubernetesClient client) throws Exception {
        AtomicLong ahead = new AtomicLong();
        Ticker ticker = () -> System.nanoTime() + ahead.get();
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), syncPeriod, workers, List.of(), Duration.ofSeconds(30))
                .withPersistHistory(true);
        HorizontalController controller = new HorizontalController(client, options, Clock.systemUTC(), ticker, WriteGate.alwaysOpen());
        try {
            controller.startInformers();
            if (!controller.awaitSynced(SYNC_TIMEOUT)) {
                throw new IllegalStateException("the informers did not sync within " + SYNC_TIMEOUT.toMinutes() + " minutes");
            }
            Window w = new Window();
            controller.addListener(w);
            controller.startWorkers();
            awaitSyncs(w, 1, "the first period");
            ahead.addAndGet(syncPeriod.toNanos());
            long start = System.nanoTime();
            awaitSyncs(w, 2, "the backlog");
            double rate = hpas / ((System.nanoTime() - start) / 1e9);
            Map<String, String> f = new LinkedHashMap<>();
            f.put("paced_reconciles_per_second", String.format("%.0f", rate));
            f.put("paced_limit_per_second", String.format("%.0f", WorkQueue.PACE * hpas / (syncPeriod.toNanos() / 1e9)));
            return f;
        } finally {
            controller.stop(Duration.ofSeconds(5));
        }
    }

    /** Waits until every HPA was synced {@code times} times. */
    private void awaitSyncs(Window w, int times, String what) throws InterruptedException {
        long deadline = System.nanoTime() + SYNC_TIMEOUT.toNanos();
        while (w.syncsPerHpa.size() < hpas || w.syncsPerHpa.values().stream().anyMatch(n -> n < times)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not end within " + SYNC_TIMEOUT.toMinutes() + " minutes: "
                        + w.syncsPerHpa.values().stream().filter(n -> n >= times).count() + " of " + hpas + " HPAs synced " + times + " times");
            }
            Thread.sleep(10);
        }
    }

    /** What the bench records of each reconcile: how often each HPA was synced, and, while measuring, the figures. */
    private static final class Window implements HorizontalController.SyncListener {
        final Map<HpaKey, Integer> syncsPerHpa = new ConcurrentHashMap<>();
        volatile boolean measuring;
        final Histogram total = latencies();
        final Histogram cpu = latencies();
        final Histogram api = latencies();
        final AtomicLong apiCalls = new AtomicLong();
        final AtomicLong reconciles = new AtomicLong();
        final AtomicLong errors = new AtomicLong();

        @Override
        public void onSync(SyncReport r) {
            if (r.outcome() == null) {
                return;
            }
            syncsPerHpa.merge(r.key(), 1, Integer::sum);
            if (!measuring) {
                return;
            }
            reconciles.incrementAndGet();
            total.recordValue(Math.max(0, r.totalNanos()));
            cpu.recordValue(Math.max(0, r.cpuNanos()));
            api.recordValue(Math.max(0, r.apiNanos()));
            apiCalls.addAndGet(r.apiCalls());
            if (r.outcome().errorMessage() != null) {
                errors.incrementAndGet();
            }
        }
    }

    /** Nanoseconds, to 3 significant digits (0.1 %), from 1 ns up, growing as needed; safe to record from every worker. */
    static Histogram latencies() {
        return new SynchronizedHistogram(3);
    }

    private static String ms(long nanos) {
        return String.format("%.3f", nanos / 1e6);
    }

    private static String mib(double bytes) {
        return String.format("%.1f", bytes / (1024.0 * 1024.0));
    }
}
