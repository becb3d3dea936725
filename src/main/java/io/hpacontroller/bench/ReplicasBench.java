package io.hpacontroller.bench;

import io.hpacontroller.shard.Ring;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * {@code bench --replicas N}: N controller processes ({@link RunProcess}, {@code run --sharding}, each its own identity
 * as a pod's name) against one {@link ApiStub}, measured from outside as {@link ProcessBench} measures one.
 *
 * <p>The steady window starts one sync period after every HPA was reconciled once (by whichever replica) and every
 * replica counted all N members (so the handovers of the start-up are over), and ends when the run ends.
 *
 * <p>{@link #othersAsLeases}: only replica 1 runs; the stub serves the other N-1 members' Leases, always live, as if
 * their processes ran on other nodes. Replica 1 then owns and syncs its share alone on the machine, as a pod on a node
 * of its own, and pays everything a replica pays (caches of every HPA and pod, the ring, the claims, the sweep of the
 * others' HPAs, its Lease) except sharing cores with the other replicas. The others' HPAs are not synced; "every HPA
 * reconciled once" then means every HPA replica 1 owns.
 */
final class ReplicasBench {

    /** How often the replicas' /metrics are read for the members they count, until they agree. */
    private static final long MEMBERS_EVERY_MILLIS = 1000;

    private final int replicas;
    private final int hpas;
    private final int workers;
    private final Duration syncPeriod;
    private final Duration runFor;
    private final List<String> jvmOptions;
    private final PrintWriter log;
    /** Each replica pinned to a core of its own ({@code bench --pin-cores}). */
    private boolean pinned;
    /** Only replica 1 runs; the others are Leases the stub keeps live ({@code bench --others-as-leases}). */
    private boolean othersAsLeases;

    ReplicasBench(int replicas, int hpas, int workers, Duration syncPeriod, Duration runFor, List<String> jvmOptions, PrintWriter log) {
        this.replicas = replicas;
        this.hpas = hpas;
        this.workers = workers;
        this.syncPeriod = syncPeriod;
        this.runFor = runFor;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.log = log;
    }

    /** Pins replica i to core i ({@code bench --pin-cores}: as many cores as replicas). */
    ReplicasBench pinned(boolean pinned) {
        this.pinned = pinned;
        return this;
    }

    /** Runs replica 1 alone, the other members as Leases only ({@code bench --others-as-leases}). */
    ReplicasBench othersAsLeases(boolean othersAsLeases) {
        this.othersAsLeases = othersAsLeases;
        return this;
    }

    /** A moment of the run: per replica its CPU seconds and reconciles so far; the stub's requests. */
    private record Snapshot(double seconds, double[] cpu, double[] reconciles, Map<String, Long> requests) {
    }

    /** The figures, in the order they are printed, and the replicas' shares of the steady window (empty without one). */
    record Result(Map<String, String> figures, List<ReplicaFigures.Replica> shares) {
    }

    Result run(StubProcess stub) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("hpa-controller-bench-");
        Map<String, String> f = new LinkedHashMap<>();
        f.put("replicas", Integer.toString(replicas));
        f.put("jvm_options", String.join(" ", jvmOptions));
        f.put("sync_period_seconds", String.format("%.1f", syncPeriod.toMillis() / 1000.0));
        long startMillis = System.currentTimeMillis();
        long start = System.nanoTime();
        List<RunProcess> controllers = new ArrayList<>();
        int running = othersAsLeases ? 1 : replicas;
        // the HPAs the running replicas sync: all of them, or with others as Leases what the ring gives replica 1
        long toReconcile = othersAsLeases ? ownedBy(name(0)) : hpas;
        if (othersAsLeases) {
            List<String> view = members();
            List<String> others = view.subList(1, replicas);
            stub.phantomMembers(others, view);
            f.put("others_as_leases", String.join(",", others) + " (Leases only, kept live by the stub; their HPAs are not synced)");
        }
        try {
            for (int i = 0; i < running; i++) {
                Path own = Files.createDirectory(dir.resolve("replica-" + (i + 1)));
                controllers.add(RunProcess.start(jvmOptions, stub.port, workers, syncPeriod, own, name(i), pinned ? i : -1));
            }
            double[] ready = new double[running];
            Arrays.fill(ready, -1);
            double allReconciled = -1;
            double agreed = -1;
            long nextMembersCheck = 0;
            Snapshot steadyStart = null;
            long deadline = start + runFor.toNanos();
            while (System.nanoTime() < deadline) {
                double seconds = (System.nanoTime() - start) / 1e9;
                for (int i = 0; i < running; i++) {
                    RunProcess c = controllers.get(i);
                    if (!c.isAlive()) {
                        throw new IllegalStateException(name(i) + " exited; its last output:\n" + c.tail(40));
                    }
                    if (ready[i] < 0 && c.ready()) {
                        ready[i] = seconds;
                        progress(String.format("%s ready (informers synced) after %.1f s", name(i), seconds));
                    }
                }
                if (allReconciled < 0) {
                    long[] first = stub.firstQueries();
                    if (first[0] >= toReconcile) {
                        allReconciled = (first[1] - startMillis) / 1000.0;
                        progress(String.format("every HPA %sreconciled once %.1f s after the processes started",
                                othersAsLeases ? "of " + name(0) + "'s " + toReconcile + " " : "", allReconciled));
                    }
                }
                if (agreed < 0 && System.currentTimeMillis() >= nextMembersCheck) {
                    nextMembersCheck = System.currentTimeMillis() + MEMBERS_EVERY_MILLIS;
                    if (controllers.stream().allMatch(c -> PrometheusText.sum(c.metrics(), "hpa_controller_shard_members", "") == replicas)) {
                        agreed = seconds;
                        progress(String.format("every replica counts %d members after %.1f s", replicas, agreed));
                    }
                }
                if (steadyStart == null && allReconciled >= 0 && agreed >= 0
                        && seconds >= Math.max(allReconciled, agreed) + syncPeriod.toMillis() / 1000.0) {
                    steadyStart = snapshot(controllers, stub, seconds);
                    progress(String.format("steady from %.1f s", seconds));
                }
                Thread.sleep(ProcessBench.SAMPLE_MILLIS);
            }
            Snapshot end = snapshot(controllers, stub, (System.nanoTime() - start) / 1e9);
            f.put("seconds_to_first_reconcile_all", StartUpFigures.seconds(allReconciled));
            f.put("seconds_to_members_agree", StartUpFigures.seconds(agreed));
            double steadySeconds = steadyStart == null ? 0 : end.seconds() - steadyStart.seconds();
            double handovers = 0;
            List<ReplicaFigures.Replica> shares = new ArrayList<>();
            for (int i = 0; i < running; i++) {
                RunProcess c = controllers.get(i);
                String metrics = c.metrics();
                String p = ReplicaFigures.prefix(i);
                f.put(p + "name", name(i));
                f.put(p + "seconds_to_ready", StartUpFigures.seconds(ready[i]));
                if (steadyStart != null) {
                    ReplicaFigures.Replica share = new ReplicaFigures.Replica((long) PrometheusText.sum(metrics, "hpa_controller_owned_hpas", ""),
                            end.reconciles()[i] - steadyStart.reconciles()[i], end.cpu()[i] - steadyStart.cpu()[i]);
                    shares.add(share);
                    ReplicaFigures.share(share, steadySeconds).forEach((k, v) -> f.put(p + k, v));
                }
                f.put(p + "cpu_seconds_total", StartUpFigures.seconds(end.cpu()[i]));
                f.put(p + "rss_mib_end", StartUpFigures.mib(c.meter.memory().rssKib()));
                f.put(p + "heap_mib_used_end", StartUpFigures.mib(PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\"") / 1024));
                handovers += PrometheusText.sum(metrics, "hpa_controller_shard_handovers_total", "");
            }
            if (steadyStart == null) {
                progress("no steady window within " + runFor.toSeconds() + " s: give a longer --run-for");
                f.put("steady_reconciles_per_second", "n/a");
                f.put("steady_cpu_ms_per_reconcile", "n/a");
            } else {
                f.putAll(ReplicaFigures.totals(shares, steadySeconds));
                f.put("steady_api_requests_per_reconcile", StartUpFigures.perReconcile(ProcessBench.reconcileRequests(steadyStart.requests(), end.requests()),
                        shares.stream().mapToDouble(ReplicaFigures.Replica::reconciles).sum()));
            }
            f.put("handovers_total", String.format("%.0f", handovers));
            f.putAll(QueriesPerSecond.figures(stub.queriesPerSecond(), startMillis / 1000, (startMillis + (long) (end.seconds() * 1000)) / 1000,
                    steadyStart == null ? -1 : startMillis / 1000 + (long) Math.ceil(steadyStart.seconds())));
            return new Result(f, shares);
        } finally {
            controllers.forEach(RunProcess::close);
            ProcessBench.delete(dir);
        }
    }

    /** How many of the stub's HPAs the ring over all N replicas gives to {@code member}. */
    private long ownedBy(String member) {
        List<String> view = members();
        return IntStream.range(0, hpas).filter(i -> member.equals(Ring.owner(ApiStub.key(i), view))).count();
    }

    /** Every replica's identity. */
    private List<String> members() {
        return IntStream.range(0, replicas).mapToObj(ReplicasBench::name).toList();
    }

    /** A replica's identity: its Lease holder, as a pod's name would be. */
    static String name(int replica) {
        return "bench-replica-" + (replica + 1);
    }

    private Snapshot snapshot(List<RunProcess> controllers, StubProcess stub, double seconds) throws IOException {
        double[] cpu = new double[controllers.size()];
        double[] reconciles = new double[controllers.size()];
        for (int i = 0; i < controllers.size(); i++) {
            double[] reconcilesAndCpu = controllers.get(i).reconcilesAndCpu();
            reconciles[i] = reconcilesAndCpu[0];
            cpu[i] = reconcilesAndCpu[1];
        }
        return new Snapshot(seconds, cpu, reconciles, stub.counts());
    }

    private void progress(String message) {
        log.println("# " + message);
        log.flush();
    }
}
