package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.bench.StartUpFigures;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.kube.AuditEvent;
import io.hpacontroller.testing.kube.BenchRun;
import io.hpacontroller.testing.kube.Crds;
import io.hpacontroller.testing.kube.Kubelet;
import io.hpacontroller.testing.kube.MetricsQueries;
import io.hpacontroller.testing.kube.ResourceMetrics;
import io.hpacontroller.testing.kube.Workloads;
import org.awaitility.Awaitility;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Issue 30's measurement in the cluster (a benchmark, not a test: {@code tools/node-bench}, docs/benchmarks.md).
 * On a real node ({@link RealNode}) it runs, one after the other, each as a pod from its image:
 * <ul>
 * <li>{@code upstream}: kube-controller-manager v1.26.1 with only its HPA controller, in an image made here from
 * the static binary of {@code shared/kube} ({@link ImageArchive}), in-cluster credentials (a ServiceAccount bound
 * to cluster-admin), leader election, {@code --kube-api-qps=200 --kube-api-burst=300} as in
 * {@code tools/real-api-bench};</li>
 * <li>{@code jar}: the controller as {@code helm install} of the chart with its defaults (two replicas, the mirror
 * API, kept history, a 256Mi limit) installs it, from the image {@code mvn verify} built.</li>
 * </ul>
 * One kubelet holds 110 pods, so the workload ({@code --hpas} paused Deployments of {@code --pods-per-hpa}
 * pods, created directly, every pod at 50 % of its CPU request: nothing scales) runs on the fixture's fake
 * kubelet beside the real node, and metrics.k8s.io answers for it with fixed samples; the controllers' pods
 * run on the real node. Each controller reconciles its own HPAs ({@code autoscaling/v2} for upstream, the
 * mirror API's for the chart), created before it starts and deleted after it stops. Figures, printed as
 * {@code NAME.FIGURE: VALUE} lines and written to {@code target/node/incluster-bench-HPAS.txt}:
 * <ul>
 * <li>start-up: seconds and the pod's CPU (its cgroup) from the pod's start until every HPA's first reconcile
 * (its first metrics query);</li>
 * <li>steady: the pod's CPU per reconcile over whole sync periods, from one period after that, reconciles being
 * the controller's metrics.k8s.io pod queries in the audit log;</li>
 * <li>working set: the kubelet's ({@code /metrics/resource}, as metrics-server and {@code kubectl top} show it)
 * at the end, and the peak of the cgroup's (usage less inactive file pages, cAdvisor's definition) over the
 * run.</li>
 * </ul>
 */
public final class InClusterBench {

    static final String UPSTREAM_IMAGE = "registry.local/kube-controller-manager:v1.26.1";
    private static final String UPSTREAM_NAMESPACE = "upstream-hpa";
    private static final String RELEASE = "hpa-controller";
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(15);
    private static final Duration CEILING = Duration.ofMinutes(15);
    private static final Usage USAGE = new Usage("50m", "64Mi"); // of Workloads' 100m request: 50 %, the target

    private record Usage(String cpu, String memory) {
    }

    /** {@code jar}, or {@code jar{VALUE=X;VALUE=Y}}: the chart installed with these values. */
    private static final java.util.regex.Pattern VARIANT = java.util.regex.Pattern.compile("^jar(?:\\{((?:[^=;{}]+=[^;{}]*;?)*)\\})?$");

    private final int hpas;
    private final int podsPerHpa;
    private final int namespaces;
    private final Duration runFor;
    private final List<String> controllers;
    private final RealNode.Layout layout;
    private final Map<String, String> figures = new LinkedHashMap<>();
    private final List<String> spaces = new ArrayList<>();

    private InClusterBench(int hpas, int podsPerHpa, int namespaces, Duration runFor, List<String> controllers, RealNode.Layout layout) {
        this.hpas = hpas;
        this.podsPerHpa = podsPerHpa;
        this.namespaces = namespaces;
        this.runFor = runFor;
        this.controllers = controllers;
        this.layout = layout;
    }

    public static void main(String[] args) {
        InClusterBench bench;
        try {
            Map<String, String> a = BenchRun.options(args, Map.of("--hpas", "1000", "--pods-per-hpa", "5", "--namespaces", "10",
                    "--run-for", "240", "--controllers", "upstream,jar", "--node-layout", Integer.toString(RealNode.Layout.shared().index())));
            bench = new InClusterBench(Integer.parseInt(a.get("--hpas")), Integer.parseInt(a.get("--pods-per-hpa")),
                    Integer.parseInt(a.get("--namespaces")), Duration.ofSeconds(Long.parseLong(a.get("--run-for"))),
                    List.of(a.get("--controllers").split(",(?![^{}]*\\})")), new RealNode.Layout(Integer.parseInt(a.get("--node-layout"))));
        } catch (NumberFormatException e) {
            usage("not a number: " + e.getMessage());
            return;
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return;
        }
        if (bench.layout.index() < 0 || bench.layout.index() > 80) {
            usage("--node-layout takes 0 to 80 (the node's bridge, addresses and cgroup root; default -Dnode.layout or 0): " + bench.layout.index());
        }
        if (!bench.controllers.stream().allMatch(c -> c.equals("upstream") || VARIANT.matcher(c).matches())) {
            usage("--controllers takes upstream, jar and jar{VALUE=X;VALUE=Y} (the chart with these values; commas inside the braces are the value's), comma-separated: "
                    + bench.controllers);
        }
        int exit = 0;
        try (RealNode node = RealNode.start("incluster-bench", bench.layout, List.of());
             Kubelet kubelet = Kubelet.besideRealNodes(node.adminClient())) {
            node.importImage(RealNodeExtension.controllerImage());
            bench.run(node, kubelet);
        } catch (Exception e) {
            e.printStackTrace();
            exit = 1;
        }
        StringBuilder out = new StringBuilder();
        bench.figures.forEach((k, v) -> out.append(k).append(": ").append(v).append('\n'));
        System.out.print(out);
        try {
            Files.writeString(Path.of("target", "node", "incluster-bench-" + bench.hpas + ".txt"), out);
        } catch (IOException e) {
            System.err.println("cannot write the figures: " + e);
        }
        System.exit(exit); // the informers leave non-daemon threads
    }

    private static void usage(String problem) {
        System.err.println("InClusterBench: " + problem);
        System.exit(2);
    }

    private static void progress(String message) {
        System.out.println("# " + Instant.now() + " " + message);
    }

    private void run(RealNode node, Kubelet kubelet) throws Exception {
        figures.put("hpas", Integer.toString(hpas));
        figures.put("pods", Integer.toString(hpas * podsPerHpa));
        figures.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        figures.put("load_average_before_setup", BenchRun.loadAverages());
        setUp(node, kubelet);
        figures.put("load_average_after_setup", BenchRun.loadAverages());
        int jars = 0;
        for (String c : controllers) {
            if (c.equals("upstream")) {
                measureUpstream(node);
            } else {
                Map<String, Object> values = new LinkedHashMap<>();
                String set = VARIANT.matcher(c).replaceFirst("$1");
                for (String kv : set.isEmpty() ? new String[0] : set.split(";")) {
                    values.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                measureChart(node, jars++ == 0 ? "jar" : "jar" + jars, values);
            }
        }
    }

    // ---- the workload, on the fake kubelet ----

    private void setUp(RealNode node, Kubelet kubelet) throws Exception {
        long t0 = System.nanoTime();
        KubernetesClient admin = node.adminClient();
        Selector any = Selector.parse("app");
        for (int i = 0; i < namespaces; i++) {
            String ns = node.newNamespace("bench").name();
            spaces.add(ns);
            node.podsElsewhere(ns, namespace -> kubelet.runningPods(namespace, any).stream().map(p -> new ResourceMetrics.PodSample(
                    p.getMetadata().getName(), p.getMetadata().getLabels(), Instant.now(), KubeletResourceMetrics.RESOLUTION,
                    Map.of("app", new ResourceMetrics.Usage(USAGE.cpu(), USAGE.memory())))).toList());
        }
        parallel(i -> {
            String ns = spaces.get(i % spaces.size());
            String name = "app-" + i;
            Deployment d = Workloads.deployment(name, podsPerHpa);
            d.getSpec().setPaused(true); // the deployment controller runs here: paused, it makes no ReplicaSet and no pods
            BenchRun.create(admin, ns, d);
            PodTemplateSpec template = Workloads.podTemplate(name);
            for (int k = 0; k < podsPerHpa; k++) {
                BenchRun.create(admin, ns, new PodBuilder().withNewMetadata().withName(name + "-" + k).withLabels(template.getMetadata().getLabels())
                        .endMetadata().withSpec(template.getSpec()).build());
            }
        });
        await("every pod Running and Ready on the fake kubelet",
                () -> spaces.stream().mapToInt(ns -> kubelet.runningPods(ns, any).size()).sum() >= hpas * podsPerHpa);
        figures.put("setup_seconds", String.format("%.1f", (System.nanoTime() - t0) / 1e9));
        progress(hpas + " paused Deployments and " + hpas * podsPerHpa + " pods running");
    }

    private interface Step {
        void run(int i) throws Exception;
    }

    private void parallel(Step step) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < hpas; i++) {
                int n = i;
                done.add(pool.submit(() -> {
                    step.run(n);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void createHpas(RealNode node, HpaApi api) throws Exception {
        parallel(i -> NodeHpas.create(node.adminClient(), api, spaces.get(i % spaces.size()), """
                metadata: {name: app-%d}
                spec:
                  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app-%d}
                  minReplicas: 1
                  maxReplicas: %d
                  metrics:
                  - type: Resource
                    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                """.formatted(i, i, podsPerHpa * 2)));
        progress(hpas + " HPAs of " + api.apiVersion() + " created");
    }

    private void deleteHpas(RealNode node, HpaApi api) {
        var hpaType = new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder().withGroup(api.group())
                .withVersion(api.version()).withKind("HorizontalPodAutoscaler").withPlural(api.plural()).withNamespaced(true).build();
        for (String ns : spaces) {
            node.adminClient().genericKubernetesResources(hpaType).inNamespace(ns).delete();
        }
        await("the HPAs of " + api.apiVersion() + " to be gone",
                () -> spaces.stream().allMatch(ns -> node.adminClient().genericKubernetesResources(hpaType).inNamespace(ns).list().getItems().isEmpty()));
    }

    // ---- the two controllers ----

    private void measureUpstream(RealNode node) throws Exception {
        Path kcm = node.plane().program("kube-controller-manager");
        Path archive = node.directory().resolve("images/kube-controller-manager.tar");
        new ImageArchive(UPSTREAM_IMAGE).copy(kcm, "/usr/local/bin/kube-controller-manager").directory("/tmp", 01777)
                .entrypoint("/usr/local/bin/kube-controller-manager").writeTo(archive);
        node.importImage(archive);
        figures.put("upstream.image_mib", mib(Files.size(archive)));
        createHpas(node, HpaApi.BUILTIN);
        KubernetesClient admin = node.adminClient();
        BenchRun.clusterAdminServiceAccount(admin, UPSTREAM_NAMESPACE, "kube-controller-manager", "upstream-hpa");
        List<String> args = List.of("--controllers=horizontalpodautoscaling", "--leader-elect=true",
                "--leader-elect-resource-namespace=" + UPSTREAM_NAMESPACE, "--secure-port=0", "--kube-api-qps=200", "--kube-api-burst=300",
                "--horizontal-pod-autoscaler-sync-period=" + SYNC_PERIOD.toSeconds() + "s");
        figures.put("upstream.args", String.join(" ", args));
        Instant started = Instant.now();
        admin.apps().deployments().inNamespace(UPSTREAM_NAMESPACE).resource(new DeploymentBuilder().withNewMetadata()
                .withName("kube-controller-manager").endMetadata().withNewSpec().withReplicas(1)
                .withNewSelector().withMatchLabels(Map.of("app", "kube-controller-manager")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "kube-controller-manager")).endMetadata()
                .withNewSpec().withServiceAccountName("kube-controller-manager").addNewContainer().withName("kube-controller-manager")
                .withImage(UPSTREAM_IMAGE).withImagePullPolicy("Never").withArgs(args)
                .withNewResources().withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("160Mi"))).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build()).create();
        Pod pod = awaitValue("upstream's pod to run", () -> admin.pods().inNamespace(UPSTREAM_NAMESPACE).withLabel("app", "kube-controller-manager")
                .list().getItems().stream().filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElse(null));
        measure("upstream", node, started, pod, "system:serviceaccount:" + UPSTREAM_NAMESPACE + ":kube-controller-manager", List.of());
        admin.apps().deployments().inNamespace(UPSTREAM_NAMESPACE).withName("kube-controller-manager").delete();
        await("upstream's pod to be gone", () -> admin.pods().inNamespace(UPSTREAM_NAMESPACE).list().getItems().isEmpty());
        deleteHpas(node, HpaApi.BUILTIN);
    }

    private void measureChart(RealNode node, String name, Map<String, Object> values) throws Exception {
        figures.put(name + ".image_mib", mib(Files.size(RealNodeExtension.controllerImage())));
        for (Path crd : Files.list(ControllerRelease.CHART.resolve("crds")).sorted().toList()) {
            Crds.applyOnce(node.plane(), crd); // as helm does before the release: the mirror HPAs exist when the controller starts
        }
        Crds.awaitEstablished(node.adminClient(), "horizontalpodautoscalers." + HpaApi.MIRROR.group());
        createHpas(node, HpaApi.MIRROR);
        Instant started = Instant.now();
        ControllerRelease release = ControllerRelease.install(node, RELEASE, RELEASE, values);
        // the Lease outlives an earlier release of the same name: its holder must be one of this release's pods
        Pod pod = awaitValue("a leader among the release's pods", () -> release.pods().stream()
                .filter(p -> p.getMetadata().getName().equals(release.leader())).findFirst().orElse(null));
        String leader = pod.getMetadata().getName();
        List<Pod> standby = release.pods().stream().filter(p -> !p.getMetadata().getName().equals(leader)).toList();
        figures.put(name + ".chart_values", values.isEmpty() ? "defaults" : values.toString());
        try {
            measure(name, node, started, pod, release.user(), standby);
        } finally {
            release.saveLogs();
            release.close();
        }
        await("the chart's pods to be gone", () -> release.pods().isEmpty());
        deleteHpas(node, HpaApi.MIRROR);
    }

    /**
     * Measures one controller's pod from its start until {@link #runFor} after it.
     *
     * @param started when the pod was asked for (the pod's start time is the start)
     * @param user    the controller's user in the audit log
     * @param others  more pods of the controller (the chart's standby replica): their working set is reported too
     */
    private void measure(String name, RealNode node, Instant started, Pod pod, String user, List<Pod> others) throws InterruptedException {
        String p = name + ".";
        Instant podStart = Instant.parse(pod.getStatus().getStartTime());
        PodCgroup cgroup = PodCgroup.of(node.cgroupRoot(), pod.getMetadata().getUid());
        MetricsQueries queries = node.plane().metrics().podQueries();
        double allReconciled = -1;
        double cpuAtAll = -1;
        long peakWorkingSet = 0;
        Instant steadyFrom = null;
        double cpuAtSteady = 0;
        Instant end = podStart.plus(runFor);
        progress(name + ": pod " + pod.getMetadata().getName() + " started at " + podStart);
        double loadSum = 0;
        int loadSamples = 0;
        while (true) {
            Instant now = Instant.now();
            double cpu = cgroup.cpuSeconds();
            loadSum += BenchRun.loadAverage1m();
            loadSamples++;
            peakWorkingSet = Math.max(peakWorkingSet, cgroup.workingSetBytes());
            if (allReconciled < 0) {
                MetricsQueries.FirstQueries first = queries.firstSince(started);
                if (first.distinct() >= hpas) {
                    allReconciled = Duration.between(podStart, first.lastFirst()).toMillis() / 1000.0;
                    cpuAtAll = cpu; // sampled at most a second after the last first reconcile
                    figures.put(p + "cpu_seconds_to_first_reconcile_all_by_thread", cgroup.cpuByThread());
                    progress(String.format("%s: every HPA reconciled once %.1f s after the pod started", name, allReconciled));
                } else if (now.isAfter(podStart.plus(CEILING))) {
                    figures.put(p + "error", "only " + first.distinct() + " of " + hpas + " HPAs reconciled in " + CEILING);
                    return;
                }
            }
            if (steadyFrom == null && allReconciled >= 0 && now.isAfter(podStart.plusMillis((long) (allReconciled * 1000)).plus(SYNC_PERIOD))) {
                steadyFrom = now;
                cpuAtSteady = cpu;
                long periods = Math.max(1, Duration.between(now, end).toSeconds() / SYNC_PERIOD.toSeconds());
                end = now.plus(SYNC_PERIOD.multipliedBy(periods));
                progress(name + ": steady from " + now + " to " + end);
            }
            if (steadyFrom != null && !now.isBefore(end)) {
                steady(p, node, user, steadyFrom, now, cpu - cpuAtSteady);
                break;
            }
            Thread.sleep(1000);
        }
        figures.put(p + "load_average_1m_mean", String.format("%.2f", loadSum / loadSamples));
        figures.put(p + "seconds_to_first_reconcile_all", String.format("%.1f", allReconciled));
        figures.put(p + "seconds_pod_start_after_asked", String.format("%.1f", Duration.between(started, podStart).toMillis() / 1000.0));
        figures.put(p + "cpu_seconds_to_first_reconcile_all", String.format("%.2f", cpuAtAll));
        figures.put(p + "working_set_mib_peak_cgroup", mib(peakWorkingSet));
        figures.put(p + "working_set_mib_kubelet", kubeletWorkingSet(node, pod));
        figures.put(p + "memory_mib_end_cgroup", cgroup.memoryBreakdown());
        for (Pod o : others) {
            figures.put(p + "standby_working_set_mib_kubelet", kubeletWorkingSet(node, o));
        }
    }

    private void steady(String p, RealNode node, String user, Instant from, Instant to, double cpuSeconds) {
        node.plane().audit().sync();
        List<AuditEvent> requests = node.plane().audit().events(AuditEvent.Filter.all().user(user).between(from, to));
        long reconciles = requests.stream().filter(AuditEvent::isPodMetricsQuery).count();
        double seconds = Duration.between(from, to).toMillis() / 1000.0;
        figures.put(p + "steady_seconds", String.format("%.1f", seconds));
        figures.put(p + "steady_reconciles", Long.toString(reconciles));
        StartUpFigures.steady(seconds, reconciles, cpuSeconds, requests.size()).forEach((k, v) -> figures.put(p + k, v));
        figures.put(p + "steady_cpu_millicores", String.format("%.1f", cpuSeconds * 1000 / seconds));
    }

    /** The working set the kubelet reports for the pod's container (waiting for a sample, at most {@link #CEILING}). */
    private static String kubeletWorkingSet(RealNode node, Pod pod) {
        try {
            ResourceMetrics.PodSample sample = awaitValue("the kubelet's sample of " + pod.getMetadata().getName(),
                    () -> node.resourceMetrics().samples(pod.getMetadata().getNamespace()).stream()
                            .filter(s -> s.name().equals(pod.getMetadata().getName())).findFirst().orElse(null));
            long bytes = sample.containers().values().stream().mapToLong(u -> new Quantity(u.memory()).getNumericalAmount().longValue()).sum();
            return mib(bytes);
        } catch (RuntimeException e) {
            return "n/a: " + e.getMessage();
        }
    }

    /** The pod's cgroup (v1, the kubelet's cgroupfs driver): its CPU and working set. */
    private record PodCgroup(Path cpuacct, Path memory) {
        static PodCgroup of(String root, String uid) {
            return new PodCgroup(find(Path.of("/sys/fs/cgroup/cpuacct", root), uid), find(Path.of("/sys/fs/cgroup/memory", root), uid));
        }

        private static Path find(Path root, String uid) {
            try (Stream<Path> dirs = Files.walk(root, 4)) {
                return dirs.filter(d -> d.getFileName().toString().equals("pod" + uid)).findFirst()
                        .orElseThrow(() -> new IllegalStateException("no cgroup of pod " + uid + " under " + root));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        double cpuSeconds() {
            return Long.parseLong(read(cpuacct.resolve("cpuacct.usage"))) / 1e9;
        }

        /** Usage less inactive file pages, as cAdvisor (and so the kubelet) computes it. */
        long workingSetBytes() {
            long usage = Long.parseLong(read(memory.resolve("memory.usage_in_bytes")));
            long inactive = read(memory.resolve("memory.stat")).lines().filter(l -> l.startsWith("total_inactive_file "))
                    .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(0);
            return Math.max(0, usage - inactive);
        }

        /** The cgroup's anonymous memory and active and inactive file pages (jar, class-data archive, binary), in MiB. */
        String memoryBreakdown() {
            Map<String, Long> stat = new LinkedHashMap<>();
            read(memory.resolve("memory.stat")).lines().map(l -> l.split(" ")).filter(f -> f.length == 2)
                    .forEach(f -> stat.put(f[0], Long.parseLong(f[1])));
            return "anon " + mib(stat.getOrDefault("total_rss", 0L)) + ", active file " + mib(stat.getOrDefault("total_active_file", 0L))
                    + ", inactive file " + mib(stat.getOrDefault("total_inactive_file", 0L));
        }

        /**
         * The CPU seconds of the pod's threads so far, summed by thread name (digits as {@code #}), the eight
         * largest: the JIT compiler's, the collector's, the application's.
         */
        String cpuByThread() {
            Map<String, Double> byName = new java.util.HashMap<>();
            try (Stream<Path> dirs = Files.walk(cpuacct)) {
                for (Path procs : dirs.filter(d -> d.getFileName().toString().equals("cgroup.procs")).toList()) {
                    for (String pid : read(procs).lines().filter(l -> !l.isBlank()).toList()) {
                        try (Stream<Path> tasks = Files.list(Path.of("/proc", pid.strip(), "task"))) {
                            for (Path task : tasks.toList()) {
                                String stat = read(task.resolve("stat"));
                                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                                double seconds = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime: clock ticks
                                byName.merge(read(task.resolve("comm")).replaceAll("[0-9]+", "#"), seconds, Double::sum);
                            }
                        } catch (IOException | UncheckedIOException e) {
                            // the process or thread ended meanwhile
                        }
                    }
                }
            } catch (IOException e) {
                return "n/a: " + e;
            }
            return byName.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(8)
                    .map(e -> e.getKey() + " " + String.format("%.2f", e.getValue())).collect(java.util.stream.Collectors.joining(", "));
        }

        private static String read(Path file) {
            try {
                return Files.readString(file).strip();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    // ---- waiting ----

    private static void await(String what, Supplier<Boolean> condition) {
        Awaitility.await(what).atMost(CEILING).pollInterval(Duration.ofSeconds(1)).until(condition::get);
    }

    private static <T> T awaitValue(String what, Supplier<T> value) {
        return Awaitility.await(what).atMost(CEILING).pollInterval(Duration.ofSeconds(1)).until(value::get, Objects::nonNull);
    }

    private static String mib(long bytes) {
        return String.format("%.1f", bytes / 1048576.0);
    }
}
