package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.bench.Bench;
import io.hpacontroller.bench.ProcessMeter;
import io.hpacontroller.bench.QueriesPerSecond;
import io.hpacontroller.bench.StartUpFigures;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.deploy.ChartReleases;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * Issue 17's run against a real API server (not a test: it takes minutes and both cores; the README's
 * "Memory and start-up" gives the command). On the fixture's control plane (etcd, kube-apiserver with
 * its audit log, the {@link FakeMetricsServer} behind the aggregation layer, the {@link Kubelet}), it
 * creates {@code --hpas} Deployments of {@code --pods-per-hpa} replicas, their pods (created directly:
 * no deployment controller runs) and an {@code autoscaling/v2} HPA each (Resource cpu, 50 % utilization
 * of a 100m request, every pod using 50m: exactly at target, so nothing scales). Then it runs, one after
 * the other on the same objects, each for {@code --run-for}:
 * <ol>
 * <li>the jar ({@code java -jar target/hpa-controller.jar run}) with the image's JVM options and
 * {@code -XX:MaxRAM=256m}, leader election, a 15 s sync period, as the chart's ServiceAccount ({@code --jar
 * 'a.jar|b.jar'}: two builds, one after the other, as {@code jar} and {@code jar2});</li>
 * <li>with {@code --upstream true} (the default; {@code --upstream-first true} runs it before the jar), kube-controller-manager v1.26.1 with only its HPA
 * controller, {@code --kube-api-qps=200 --kube-api-burst=300}, leader election, a 15 s sync period,
 * as a ServiceAccount bound to cluster-admin (user {@value #UPSTREAM_USER}), as in the cluster.</li>
 * </ol>
 * Each one's figures are printed as {@code NAME.FIGURE: VALUE} lines: CPU from /proc (the controller,
 * kube-apiserver, etcd), requests from the audit log, reconciles as the controller's metrics.k8s.io pod
 * queries (one per reconcile of a one-metric HPA), the first reconcile and the per-second spread from the
 * fake metrics server. The steady window starts one sync period after every HPA was reconciled once and
 * lasts as many whole sync periods as fit in the run (at least one).
 *
 * <p>Issue 40: {@code --scrape-phase S} makes the fake metrics-server stamp its samples as its scrapes would, every
 * 15 s at S seconds past each quarter minute, each readable {@value #SAMPLE_READABLE_AFTER_MS} ms after its stamp, so
 * each run also gives the data age at each query ({@code data_age_at_query_seconds_*}, query time minus the sample's
 * stamp). {@code --cadences spread,fresh} runs the jar once per cadence, every HPA annotated
 * {@code autoscaling.hpa-controller.io/cadence} with it before the run ({@code jar-spread.}, {@code jar-fresh.}).
 * {@code --readable-after S} (default 2) sets how long after its stamp a sample becomes readable. Each run of the jar
 * reads its {@code /metrics} every 5 s for the learned cadence of the pipeline
 * ({@code hpa_controller_metrics_pipeline_phase_seconds}, {@code _period_seconds}): {@code learned_cadence} lists when it
 * first showed and each change; a run of the fresh cadence starts its steady window no sooner than two sync periods
 * after it first showed (its HPAs move in the period after the estimate converges), or at half the run without one.
 */
public final class RealApiBench {

    /** Upstream's ServiceAccount, bound to cluster-admin (as {@code InClusterBench} runs it in a pod): RBAC authorizes both controllers. */
    private static final String UPSTREAM_NAMESPACE = "upstream-hpa";
    private static final String UPSTREAM_ACCOUNT = "kube-controller-manager";
    static final String UPSTREAM_USER = "system:serviceaccount:" + UPSTREAM_NAMESPACE + ":" + UPSTREAM_ACCOUNT;
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(15);
    private static final int SETUP_THREADS = 8;
    private static final String CPU_USAGE = "50m"; // of Workloads' 100m request: 50 %, the target
    private static final int TARGET_UTILIZATION = 50;
    static final long SAMPLE_READABLE_AFTER_MS = 2000;
    private static final String LEARNED_PHASE = "hpa_controller_metrics_pipeline_phase_seconds";
    private static final String LEARNED_PERIOD = "hpa_controller_metrics_pipeline_period_seconds";

    private final int hpas;
    private final int podsPerHpa;
    private final int namespaces;
    private final Duration runFor;
    /** The jar of each run of the jar ({@code --jar 'a.jar|b.jar'}: two builds side by side), or one for every run. */
    private final List<Path> jars;
    private final boolean upstream;
    private final boolean upstreamFirst;
    /** The jar's runs: empty, one run leaving the HPAs as they are; else one run per cadence, every HPA annotated with it. */
    private final List<SyncCadence> cadences;
    /** The fake metrics-server's scrape phase, or null: samples stamped at each request. */
    private final Duration scrapePhase;
    /** How long after its stamp the fake metrics-server's sample becomes readable. */
    private final Duration readableAfter;
    /**
     * Added to the image's JVM options for the jar (a profiler, say); one list per run of the jar ({@code --jar-jvm-options
     * 'A|B'}: the jar twice, as {@code jar} with A and {@code jar2} with B, side by side with the same upstream run).
     */
    private final List<List<String>> jarJvmOptions;
    private final Map<String, String> figures = new LinkedHashMap<>();

    private RealApiBench(int hpas, int podsPerHpa, int namespaces, Duration runFor, List<Path> jars, List<List<String>> jarJvmOptions, boolean upstream,
                         boolean upstreamFirst, List<SyncCadence> cadences, Duration scrapePhase, Duration readableAfter) {
        this.cadences = cadences;
        this.readableAfter = readableAfter;
        this.scrapePhase = scrapePhase;
        this.jarJvmOptions = jarJvmOptions;
        this.hpas = hpas;
        this.podsPerHpa = podsPerHpa;
        this.namespaces = namespaces;
        this.runFor = runFor;
        this.jars = jars;
        this.upstream = upstream;
        this.upstreamFirst = upstreamFirst;
    }

    public static void main(String[] args) {
        RealApiBench bench;
        try {
            Map<String, String> a = BenchRun.options(args, Map.ofEntries(Map.entry("--hpas", "1000"), Map.entry("--pods-per-hpa", "5"), Map.entry("--namespaces", "10"), Map.entry("--run-for", "180"),
                    Map.entry("--jar", "target/hpa-controller.jar"), Map.entry("--jar-jvm-options", ""), Map.entry("--upstream", "true"), Map.entry("--upstream-first", "false"),
                    Map.entry("--cadences", ""), Map.entry("--scrape-phase", ""), Map.entry("--readable-after", Double.toString(SAMPLE_READABLE_AFTER_MS / 1000.0))));
            List<SyncCadence> cadences = new ArrayList<>();
            for (String c : a.get("--cadences").isBlank() ? new String[0] : a.get("--cadences").trim().split(",")) {
                cadences.add(java.util.Arrays.stream(SyncCadence.values()).filter(v -> v.text().equalsIgnoreCase(c)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("--cadences: each must be one of " + SyncCadence.choices() + ", got \"" + c + "\"")));
            }
            Duration scrapePhase = a.get("--scrape-phase").isBlank() ? null : Duration.ofMillis(Math.round(Double.parseDouble(a.get("--scrape-phase")) * 1000));
            if (scrapePhase != null && (scrapePhase.isNegative() || scrapePhase.compareTo(SYNC_PERIOD) >= 0)) {
                throw new IllegalArgumentException("--scrape-phase: seconds from 0 to under 15, got " + a.get("--scrape-phase"));
            }
            Duration readableAfter = Duration.ofMillis(Math.round(Double.parseDouble(a.get("--readable-after")) * 1000));
            if (readableAfter.isNegative() || readableAfter.compareTo(SYNC_PERIOD) >= 0) {
                throw new IllegalArgumentException("--readable-after: seconds from 0 to under 15, got " + a.get("--readable-after"));
            }
            bench = new RealApiBench(Integer.parseInt(a.get("--hpas")), Integer.parseInt(a.get("--pods-per-hpa")),
                    Integer.parseInt(a.get("--namespaces")), Duration.ofSeconds(Long.parseLong(a.get("--run-for"))),
                    java.util.Arrays.stream(a.get("--jar").split("\\|")).map(j -> Path.of(j.trim())).toList(), java.util.Arrays.stream(a.get("--jar-jvm-options").split("\\|", -1))
                            .map(o -> o.isBlank() ? List.<String>of() : List.of(o.trim().split("\\s+"))).toList(),
                    Boolean.parseBoolean(a.get("--upstream")), Boolean.parseBoolean(a.get("--upstream-first")), cadences, scrapePhase, readableAfter);
        } catch (NumberFormatException e) {
            usage("not a number: " + e.getMessage());
            return;
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return;
        }
        for (Path jar : bench.jars) {
            if (!Files.isRegularFile(jar)) {
                usage(jar + " does not exist: build it with mvn -q -B -o package -DskipTests");
            }
        }
        if (bench.jars.size() > 1 && bench.jarJvmOptions.size() > 1 && bench.jars.size() != bench.jarJvmOptions.size()) {
            usage("--jar and --jar-jvm-options: as many runs of each, or one of them a single value");
        }
        if (!ProcessMeter.available()) {
            usage("no /proc: the figures need Linux");
        }
        int exit = 0;
        try (KubeControlPlane plane = KubeControlPlane.start(new KubeControlPlane.Options("realapi-bench", List.of("serviceaccount"), List.of(), null))) {
            bench.run(plane);
        } catch (Exception e) {
            e.printStackTrace();
            exit = 1;
        }
        bench.figures.forEach((k, v) -> System.out.println(k + ": " + v));
        System.exit(exit); // Vert.x and the informers leave non-daemon threads
    }

    private static void usage(String problem) {
        System.err.println("RealApiBench: " + problem);
        System.exit(2);
    }

    private static void progress(String message) {
        System.out.println("# " + Instant.now() + " " + message);
    }

    private void run(KubeControlPlane plane) throws Exception {
        figures.put("hpas", Integer.toString(hpas));
        figures.put("pods", Integer.toString(hpas * podsPerHpa));
        figures.put("sync_period_seconds", Long.toString(SYNC_PERIOD.toSeconds()));
        figures.put("run_for_seconds", Long.toString(runFor.toSeconds()));
        figures.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        figures.put("load_average_before_setup", BenchRun.loadAverages());
        progress("control plane up: " + plane);
        if (scrapePhase != null) {
            plane.metrics().scrapeEvery(new FakeMetricsServer.Scrapes(SYNC_PERIOD, scrapePhase, readableAfter));
            figures.put("metrics_scrapes", "every " + SYNC_PERIOD.toSeconds() + " s at " + scrapePhase.toMillis() / 1000.0
                    + " s past each quarter minute, readable " + readableAfter.toMillis() + " ms after the stamp");
        }
        List<String> spaces = setUp(plane);
        figures.put("load_average_after_setup", BenchRun.loadAverages());

        var chart = ChartReleases.shipped(plane);
        String pod = "hpa-controller-bench-0";
        Path kubeconfig = chart.kubeconfigForPod(pod);
        List<List<String>> jarCommands = new ArrayList<>();
        for (int run = 0; run < Math.max(jars.size(), jarJvmOptions.size()); run++) {
            List<String> options = jarJvmOptions.get(Math.min(run, jarJvmOptions.size() - 1));
            Path jar = jars.get(Math.min(run, jars.size() - 1));
            List<String> jarCommand = new ArrayList<>();
            jarCommand.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            jarCommand.add("-XX:MaxRAM=256m");
            jarCommand.addAll(Bench.IMAGE_JVM_OPTIONS);
            jarCommand.addAll(options);
            jarCommand.addAll(List.of("-jar", jar.toString(), "run", "--kubeconfig=" + kubeconfig, "--hpa-apis=autoscaling/v2",
                    "--leader-elect=true", "--leader-elect-resource-namespace=" + chart.namespace(),
                    "--horizontal-pod-autoscaler-sync-period=" + SYNC_PERIOD.toSeconds() + "s",
                    "--health-probe-bind-address=127.0.0.1:0", "--metrics-bind-address=127.0.0.1:0",
                    "--metrics-secure=false")); // as in the earlier runs: the figures stay comparable (nothing scrapes it)
            figures.put(jarName(jarCommands.size()) + ".command", String.join(" ", jarCommand.subList(1, jarCommand.size())));
            jarCommands.add(jarCommand);
        }
        Path upstreamKubeconfig = upstreamServiceAccount(plane);
        List<String> kcm = List.of(plane.programs().controllerManager().toString(), "--kubeconfig=" + upstreamKubeconfig,
                "--controllers=horizontalpodautoscaling", "--leader-elect=true", "--secure-port=0",
                "--kube-api-qps=200", "--kube-api-burst=300",
                "--horizontal-pod-autoscaler-sync-period=" + SYNC_PERIOD.toSeconds() + "s");
        if (upstream) {
            figures.put("upstream.command", String.join(" ", kcm.subList(1, kcm.size())));
        }
        figures.put("order", !upstream ? "jar" : upstreamFirst ? "upstream, jar" : "jar, upstream");
        if (upstream && upstreamFirst) {
            measure("upstream", plane, kcm, Map.of(), new AuditEvent.Filter(e -> UPSTREAM_USER.equals(e.user())));
        }
        for (int i = 0; i < jarCommands.size(); i++) {
            if (cadences.isEmpty()) {
                measure(jarName(i), plane, jarCommands.get(i), Map.of("POD_NAME", pod, "POD_NAMESPACE", chart.namespace()),
                        new AuditEvent.Filter(e -> chart.user().equals(e.user())));
            }
            for (SyncCadence cadence : cadences) {
                annotate(plane.adminClient(), spaces, cadence);
                measure(jarName(i) + "-" + cadence.text().toLowerCase(java.util.Locale.ROOT), plane, jarCommands.get(i), Map.of("POD_NAME", pod, "POD_NAMESPACE", chart.namespace()),
                        new AuditEvent.Filter(e -> chart.user().equals(e.user())));
            }
        }
        if (upstream && !upstreamFirst) {
            measure("upstream", plane, kcm, Map.of(), new AuditEvent.Filter(e -> UPSTREAM_USER.equals(e.user())));
        }
        progress("done; namespaces " + spaces);
    }

    /**
     * A kubeconfig with a token of upstream's ServiceAccount, bound to cluster-admin: upstream's requests go through
     * RBAC as the jar's do (a certificate in system:masters skipped it), and as in the cluster ({@code tools/node-bench}).
     */
    private static Path upstreamServiceAccount(KubeControlPlane plane) {
        BenchRun.clusterAdminServiceAccount(plane.adminClient(), UPSTREAM_NAMESPACE, UPSTREAM_ACCOUNT, "bench-upstream-hpa");
        return plane.kubeconfigForServiceAccount(UPSTREAM_NAMESPACE, UPSTREAM_ACCOUNT, null);
    }

    private static String jarName(int run) {
        return run == 0 ? "jar" : "jar" + (run + 1);
    }

    // ---- the objects ----

    private List<String> setUp(KubeControlPlane plane) throws InterruptedException, ExecutionException {
        long t0 = System.nanoTime();
        KubernetesClient admin = plane.adminClient();
        List<String> spaces = new ArrayList<>();
        for (int i = 0; i < namespaces; i++) {
            String ns = plane.newNamespace("bench").name();
            plane.metrics().in(ns).podUsage("app", CPU_USAGE, "64Mi");
            spaces.add(ns);
        }
        forEachHpa(spaces, (ns, name) -> createWorkload(admin, ns, name));
        double created = (System.nanoTime() - t0) / 1e9;
        progress(String.format("created %d Deployments, %d pods and %d HPAs in %.1f s", hpas, hpas * podsPerHpa, hpas, created));
        Selector any = Selector.parse("app");
        while (spaces.stream().mapToInt(ns -> plane.kubelet().runningPods(ns, any).size()).sum() < hpas * podsPerHpa) {
            Thread.sleep(1000);
        }
        double running = (System.nanoTime() - t0) / 1e9;
        progress(String.format("every pod Running and Ready after %.1f s", running));
        figures.put("setup_seconds_created", String.format("%.1f", created));
        figures.put("setup_seconds_pods_running", String.format("%.1f", running));
        return spaces;
    }

    private void createWorkload(KubernetesClient admin, String ns, String name) {
        BenchRun.create(admin, ns, Workloads.deployment(name, podsPerHpa));
        PodTemplateSpec template = Workloads.podTemplate(name);
        for (int k = 0; k < podsPerHpa; k++) {
            BenchRun.create(admin, ns, new PodBuilder().withNewMetadata().withName(name + "-" + k).withLabels(template.getMetadata().getLabels()).endMetadata()
                    .withSpec(template.getSpec()).build());
        }
        BenchRun.create(admin, ns, new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(name).endScaleTargetRef()
                .withMinReplicas(1).withMaxReplicas(podsPerHpa * 2)
                .addNewMetric().withType("Resource").withNewResource().withName("cpu")
                .withNewTarget().withType("Utilization").withAverageUtilization(TARGET_UTILIZATION).endTarget().endResource().endMetric()
                .endSpec().build());
    }

    /** Annotates every HPA with the cadence (spelled as the annotation takes it: Spread, Fresh). */
    private void annotate(KubernetesClient admin, List<String> spaces, SyncCadence cadence) throws InterruptedException, ExecutionException {
        String value = cadence.text();
        forEachHpa(spaces, (ns, name) -> admin.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).withName(name)
                .edit(h -> new HorizontalPodAutoscalerBuilder(h).editMetadata().addToAnnotations(ControlAnnotations.CADENCE, value).endMetadata().build()));
        progress("every HPA annotated " + ControlAnnotations.CADENCE + ": " + value);
    }

    /** Runs {@code action} for every HPA's namespace and name ({@code app-I} in namespace I modulo their count), on the set-up threads. */
    private void forEachHpa(List<String> spaces, java.util.function.BiConsumer<String, String> action) throws InterruptedException, ExecutionException {
        ExecutorService pool = Executors.newFixedThreadPool(SETUP_THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < hpas; i++) {
                String ns = spaces.get(i % spaces.size());
                String name = "app-" + i;
                done.add(pool.submit(() -> action.accept(ns, name)));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- one controller ----

    /** CPU seconds of the controller, kube-apiserver, etcd and this JVM (the fake kubelet and metrics server) at one moment. */
    private record Mark(Instant at, double controller, double apiServer, double etcd, double fixture) {
    }

    private void measure(String name, KubeControlPlane plane, List<String> command, Map<String, String> env, Predicate<AuditEvent> controller)
            throws InterruptedException {
        ProcessMeter apiServer = new ProcessMeter(plane.apiServerPid());
        ProcessMeter etcd = new ProcessMeter(plane.etcdPid());
        ProcessMeter fixture = new ProcessMeter(ProcessHandle.current().pid());
        MetricsQueries queries = plane.metrics().podQueries();
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        progress("starting " + name);
        ChildProcess process = ChildProcess.start(name, command, plane.directory().resolve("logs/" + name + ".log"), env);
        ProcessMeter meter = new ProcessMeter(process.pid());
        StartUpFigures startUp = new StartUpFigures(hpas, SYNC_PERIOD, meter);
        double loadSum = 0;
        double loadMax = 0;
        int loadSamples = 0;
        Mark steady = null;
        double period = SYNC_PERIOD.toSeconds();
        boolean fresh = name.endsWith("-" + SyncCadence.FRESH.text().toLowerCase(java.util.Locale.ROOT));
        Learned learned = new Learned(process.log());
        double endAt = runFor.toSeconds();
        Mark end;
        ProcessMeter.Memory memory;
        try {
            while (true) {
                process.checkAlive();
                double seconds = (System.nanoTime() - t0) / 1e9;
                double load = BenchRun.loadAverage1m();
                loadSum += load;
                loadMax = Math.max(loadMax, load);
                loadSamples++;
                if (startUp.sample(seconds, () -> {
                    MetricsQueries.FirstQueries first = queries.firstSince(started);
                    return new StartUpFigures.FirstReconciles(first.distinct(), Duration.between(started, first.lastFirst()).toMillis() / 1000.0);
                })) {
                    progress(String.format("%s: every HPA reconciled once %.1f s after the process started", name, startUp.allReconciled()));
                }
                learned.poll(seconds);
                if (steady == null && startUp.steadyAt(seconds)
                        && (!fresh || learned.firstSeconds >= 0 && seconds >= learned.firstSeconds + 2 * period || seconds >= endAt / 2)) {
                    steady = mark(meter, apiServer, etcd, fixture);
                    // whole sync periods: a controller that syncs every HPA in one burst per period gets all its bursts counted
                    endAt = seconds + Math.max(1, Math.floor((runFor.toSeconds() - seconds) / period)) * period;
                    progress(String.format("%s: steady from %.1f s to %.1f s", name, seconds, endAt));
                }
                if (seconds >= endAt) {
                    end = mark(meter, apiServer, etcd, fixture);
                    memory = meter.memory();
                    break;
                }
                Thread.sleep(Math.max(1, Math.min(1000, (long) ((endAt - seconds) * 1000))));
            }
        } finally {
            process.stop(Duration.ofSeconds(20));
        }
        progress(name + " stopped");
        String p = name + ".";
        figures.putAll(prefixed(p, startUp.figures(Duration.between(started, end.at()).toMillis() / 1000.0, end.controller(), memory)));
        figures.put(p + "threads_end", Integer.toString(memory.threads()));
        figures.put(p + "load_average_1m_mean", String.format("%.2f", loadSum / loadSamples));
        figures.put(p + "load_average_1m_max", String.format("%.2f", loadMax));
        if (learned.port >= 0) { // the jar (upstream serves no such /metrics here)
            figures.put(p + "learned_cadence", learned.changes.isEmpty() ? "none" : String.join(", ", learned.changes));
        }
        if (steady == null) {
            figures.put(p + "steady", "n/a: not every HPA was reconciled, or no sync period was left; the log: " + process.log());
        } else {
            steadyFigures(p, plane.audit(), controller, steady, end);
            figures.putAll(prefixed(p, dataAges(queries.agesBetween(steady.at(), end.at()))));
        }
        figures.putAll(prefixed(p, QueriesPerSecond.figures(queries.perSecondSince(started), started.getEpochSecond(), end.at().getEpochSecond(),
                steady == null ? -1 : steady.at().getEpochSecond() + 1)));
    }

    private void steadyFigures(String p, AuditLog audit, Predicate<AuditEvent> controller, Mark from, Mark to) {
        List<AuditEvent> requests = audit.events(AuditEvent.Filter.all().between(from.at(), to.at()).and(controller));
        long reconciles = requests.stream().filter(AuditEvent::isPodMetricsQuery).count();
        long leases = requests.stream().filter(e -> "leases".equals(e.resource())).count();
        Map<String, Long> kinds = new TreeMap<>();
        for (AuditEvent e : requests) {
            String what = e.resource() == null ? e.requestUri().replaceAll("\\?.*", "") // discovery, /version
                    : (e.apiGroup() == null ? "" : e.apiGroup() + "/") + e.resource() + (e.subresource() == null ? "" : "/" + e.subresource());
            String kind = e.verb() + " " + what + (e.code() >= 300 ? " " + e.code() : "");
            kinds.merge(kind, 1L, Long::sum);
        }
        double seconds = Duration.between(from.at(), to.at()).toMillis() / 1000.0;
        figures.put(p + "steady_seconds", String.format("%.1f", seconds));
        figures.put(p + "steady_reconciles", Long.toString(reconciles));
        figures.putAll(prefixed(p, StartUpFigures.steady(seconds, reconciles, to.controller() - from.controller(), requests.size())));
        figures.put(p + "steady_api_requests_per_reconcile_without_lease", StartUpFigures.perReconcile(requests.size() - leases, reconciles));
        figures.put(p + "steady_api_requests_by_kind", kinds.toString());
        figures.put(p + "steady_apiserver_cpu_ms_per_reconcile", StartUpFigures.perReconcile((to.apiServer() - from.apiServer()) * 1000, reconciles));
        figures.put(p + "steady_etcd_cpu_ms_per_reconcile", StartUpFigures.perReconcile((to.etcd() - from.etcd()) * 1000, reconciles));
        figures.put(p + "steady_fixture_cpu_ms_per_reconcile", StartUpFigures.perReconcile((to.fixture() - from.fixture()) * 1000, reconciles));
    }

    /** p50, p90 and max of the data ages (sorted, ms) in seconds; nothing when the samples are stamped at each request. */
    private static Map<String, String> dataAges(long[] sorted) {
        Map<String, String> f = new LinkedHashMap<>();
        if (sorted.length > 0) {
            f.put("data_age_at_query_seconds_p50", String.format("%.1f", sorted[(int) Math.ceil(0.50 * sorted.length) - 1] / 1000.0));
            f.put("data_age_at_query_seconds_p90", String.format("%.1f", sorted[(int) Math.ceil(0.90 * sorted.length) - 1] / 1000.0));
            f.put("data_age_at_query_seconds_max", String.format("%.1f", sorted[sorted.length - 1] / 1000.0));
        }
        return f;
    }

    /**
     * The jar's learned cadence of its (one) metrics pipeline, read from its /metrics (its port from its log): when it
     * first showed ({@link #firstSeconds}, seconds after the process started; negative before) and each change.
     */
    private static final class Learned {
        private final Path log;
        private final java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private String last = "";
        private double polledAt = -5;
        int port = -1;
        double firstSeconds = -1;
        final List<String> changes = new ArrayList<>();

        Learned(Path log) {
            this.log = log;
        }

        void poll(double seconds) {
            if (seconds < polledAt + 5) { // every 5 s: as cheap as a Prometheus scrape
                return;
            }
            polledAt = seconds;
            try {
                if (port < 0) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("serving /metrics and /decisions on port (\\d+)").matcher(Files.readString(log));
                    port = m.find() ? Integer.parseInt(m.group(1)) : -1;
                }
                if (port < 0) {
                    return;
                }
                String body = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(2)).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
                String now = gauge(body, LEARNED_PHASE) + " s of " + gauge(body, LEARNED_PERIOD) + " s";
                if (!now.equals(last) && !gauge(body, LEARNED_PHASE).isEmpty()) {
                    firstSeconds = firstSeconds < 0 ? seconds : firstSeconds;
                    changes.add(String.format("%.0f s: %s", seconds, now));
                }
                last = now;
            } catch (java.io.IOException e) {
                // not serving yet, or stopping: the next poll tries again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The value of the first series of {@code name} in a Prometheus text exposition, empty without one. */
        private static String gauge(String body, String name) {
            for (String line : body.split("\n")) {
                if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                    return line.substring(line.lastIndexOf(' ') + 1);
                }
            }
            return "";
        }
    }

    private static Mark mark(ProcessMeter controller, ProcessMeter apiServer, ProcessMeter etcd, ProcessMeter fixture) {
        return new Mark(Instant.now(), controller.cpuSeconds(), apiServer.cpuSeconds(), etcd.cpuSeconds(), fixture.cpuSeconds());
    }

    private static Map<String, String> prefixed(String p, Map<String, String> f) {
        Map<String, String> out = new LinkedHashMap<>();
        f.forEach((k, v) -> out.put(p + k, v));
        return out;
    }
}
