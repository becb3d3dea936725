package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.KubeControlPlane;
import io.hpacontroller.testing.kube.ResourceMetrics;
import io.hpacontroller.testing.kube.TestNamespace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * A real single-node Kubernetes cluster on this machine, for the {@code *NodeIT} tests: a control plane
 * ({@link KubeControlPlane} with Node authorization and kube-scheduler) and one Node whose kubelet runs
 * real containers with containerd and runc (Debian's packages), on a CNI bridge with no uplink, from images
 * made here ({@link LocalImages}; no registry is reachable). See {@code package-info.java}.
 *
 * <p>How it stays off the rest of the machine: containerd, the kubelet and every container run in one
 * private mount and PID namespace (an {@code unshare} whose child is the namespace's init). There
 * {@code /run}, {@code /var/lib} and {@code /var/log} are fresh tmpfs mounts with this node's directories
 * bound into them, {@code /proc/sys} keys the kubelet would set are shadowed by files that already hold its
 * values, so nothing it mounts or sets shows on the host. Killing that {@code unshare} (as {@link #close()}
 * does, and the test processes' watchdog if the JVM dies) ends every process of the node at once. What is
 * left on the host is removed by {@link #close()}, or by the next start: the bridge and the node's cgroups
 * (under their own root, see {@link Layout}).
 *
 * <p>Pods reach the API server at the {@code kubernetes} Service's address, as in-cluster clients do: the
 * bridge holds that address and a {@link ServiceProxy} forwards it to kube-apiserver (there is no
 * kube-proxy, and no iptables rule is added). The kubelet refuses a loopback node address, so the node's
 * InternalIP is the bridge's.
 */
public final class RealNode implements AutoCloseable {

    public static final String NODE_NAME = "hpa-node";

    /**
     * Where node number {@code index} lives on this machine, so that two nodes (two test JVMs, or a fixture
     * test beside the shared node) never meet: its bridge, addresses, Service range and cgroup root.
     */
    record Layout(int index) {
        /**
         * The shared node's: 0, or {@code -Dnode.layout=N} for a second checkout testing on this machine at the same
         * time (its fixture test takes N + 1).
         */
        static Layout shared() {
            return new Layout(Integer.getInteger("node.layout", 0));
        }

        Layout next() {
            return new Layout(index + 1);
        }

        String bridge() {
            return "hpanode" + index;
        }

        String nodeIp() {
            return "10.88." + (78 + 2 * index) + ".1";
        }

        String podSubnet() {
            return "10.88." + (78 + 2 * index) + ".0/24";
        }

        String serviceRange() {
            return "10.88." + (79 + 2 * index) + ".0/24";
        }

        String cgroupRoot() {
            return "hpa-test-node-" + index;
        }
    }
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    /** The kubelet's wanted kernel tunables (pkg/kubelet/cm/container_manager_linux.go, setupKernelTunables). */
    private static final Map<String, String> KERNEL_TUNABLES = Map.of("vm/overcommit_memory", "1", "vm/panic_on_oom", "0",
            "kernel/panic", "10", "kernel/panic_on_oops", "1", "kernel/keys/root_maxkeys", "1000000", "kernel/keys/root_maxbytes", "25000000");

    private final Path dir;
    private final Layout layout;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook = new Thread(this::close, "real-node-shutdown");
    private KubeControlPlane plane;
    private KubeletResourceMetrics resourceMetrics;
    /** Where metrics.k8s.io takes the samples of the namespaces whose pods run elsewhere than on this node. */
    private final Map<String, ResourceMetrics> elsewhere = new java.util.concurrent.ConcurrentHashMap<>();
    private ChildProcess namespaceRoot;
    private long init;
    private ChildProcess containerd;
    private volatile ChildProcess kubelet;
    private ServiceProxy serviceProxy;
    private final UpstreamHpaController upstreamHpaController = new UpstreamHpaController(this);
    private boolean bridgeCreated;
    private final List<String> timeline = new ArrayList<>();
    private final Instant started = Instant.now();

    private RealNode(Path dir, Layout layout) {
        this.dir = dir;
        this.layout = layout;
    }

    /**
     * Starts the control plane and the node, and waits until the node is Ready and schedulable (about 30 s
     * on 2 cores). {@code controllerManagerFlags}: more kube-controller-manager flags.
     */
    public static RealNode start(String name, List<String> controllerManagerFlags) {
        return start(name, Layout.shared(), controllerManagerFlags);
    }

    static RealNode start(String name, Layout layout, List<String> controllerManagerFlags) {
        Preflight.check();
        Path dir;
        try {
            Path root = Path.of(System.getProperty("user.dir"), "target", "node");
            Files.createDirectories(root);
            dir = Files.createTempDirectory(root, name + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss")) + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RealNode node = new RealNode(dir, layout);
        Runtime.getRuntime().addShutdownHook(node.shutdownHook);
        try {
            node.boot(name, controllerManagerFlags);
            return node;
        } catch (RuntimeException | Error e) {
            node.close();
            throw e;
        }
    }

    private void boot(String name, List<String> controllerManagerFlags) {
        removeLeftovers(layout);
        mkdirs("state/containerd", "state/kubelet", "state/log", "state/cni", "state/cni-conf", "state/opt", "state/sysctl",
                "run/containerd", "logs", "images");
        KubeControlPlane.RealNodes nodes = new KubeControlPlane.RealNodes(NODE_NAME, layout.serviceRange(), controllerManagerFlags, admin -> {
            resourceMetrics = new KubeletResourceMetrics(admin, NODE_NAME);
            return namespace -> elsewhere.getOrDefault(namespace, resourceMetrics).samples(namespace);
        });
        plane = KubeControlPlane.start(KubeControlPlane.Options.workloads(name).withRealNodes(nodes));
        note("control plane up (" + plane.url() + ")");
        network(nodes.serviceIp());
        serviceProxy = ServiceProxy.start(nodes.serviceIp(), 443, plane.apiPort());
        startNamespaceRoot();
        startContainerd();
        LocalImages.importInto(this, dir.resolve("images"));
        note("images imported");
        startKubelet();
        awaitNodeReady();
        resourceMetrics.start();
        note("node " + NODE_NAME + " Ready and schedulable");
    }

    // ---- host side: directories, network, cgroups ----

    private void mkdirs(String... paths) {
        try {
            for (String p : paths) {
                Files.createDirectories(dir.resolve(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a run killed with the JVM left behind: its bridge and its (empty) cgroups. */
    private static void removeLeftovers(Layout layout) {
        if (Host.run(List.of("ip", "link", "show", layout.bridge()), false).exit() == 0) {
            Host.run(List.of("ip", "link", "del", layout.bridge()), true);
        }
        Cgroups.remove(layout.cgroupRoot());
    }

    private void network(String serviceIp) {
        String bridge = layout.bridge();
        Host.run(List.of("ip", "link", "add", bridge, "type", "bridge"), true);
        bridgeCreated = true;
        Host.run(List.of("ip", "addr", "add", layout.nodeIp() + "/24", "dev", bridge), true);
        // the kubernetes Service's address, local: a pod's packets to it are delivered to the ServiceProxy
        Host.run(List.of("ip", "addr", "add", serviceIp + "/32", "dev", bridge), true);
        Host.run(List.of("ip", "link", "set", bridge, "up"), true);
        write("state/resolv.conf", "nameserver 127.0.0.1\n");
        // no gateway, no masquerading: pods reach the pod subnet and, through the node, the Service range only
        write("state/cni-conf/10-hpa-node.conflist", """
                {
                  "cniVersion": "0.4.0",
                  "name": "hpa-node",
                  "plugins": [{
                    "type": "bridge", "bridge": "%s", "isGateway": false, "ipMasq": false, "hairpinMode": false,
                    "ipam": {
                      "type": "host-local", "dataDir": "%s",
                      "ranges": [[{"subnet": "%s"}]],
                      "routes": [{"dst": "%s", "gw": "%s"}]
                    }
                  }]
                }
                """.formatted(layout.bridge(), dir.resolve("state/cni"), layout.podSubnet(), layout.serviceRange(), layout.nodeIp()));
    }

    // ---- the node's namespaces ----

    private void startNamespaceRoot() {
        StringBuilder script = new StringBuilder("set -e\nmount -t proc proc /proc\n");
        for (String fs : List.of("/run", "/var/lib", "/var/log")) {
            script.append("mount -t tmpfs -o mode=755 tmpfs ").append(fs).append('\n');
        }
        script.append("mkdir -p /run/containerd /var/lib/containerd /var/lib/kubelet\n");
        bind(script, "run/containerd", "/run/containerd");
        bind(script, "state/containerd", "/var/lib/containerd");
        bind(script, "state/kubelet", "/var/lib/kubelet");
        bind(script, "state/log", "/var/log");
        KERNEL_TUNABLES.forEach((key, value) -> {
            Path shadow = dir.resolve("state/sysctl/" + key.replace('/', '.'));
            write(dir.relativize(shadow).toString(), value + "\n");
            script.append("mount --bind ").append(shadow).append(" /proc/sys/").append(key).append('\n');
        });
        script.append("touch ").append(dir.resolve("run/namespace-ready")).append('\n');
        script.append("exec sleep 2147483647\n");
        // --kill-child: when unshare dies (killed, or the JVM with it), the namespace's init is killed, and with it every process of the node
        namespaceRoot = ChildProcess.start("node-namespaces", List.of("unshare", "--mount", "--pid", "--fork", "--kill-child",
                "--propagation", "private", "--", "sh", "-c", script.toString()), dir.resolve("logs/namespaces.log"), Map.of());
        await("the node's namespaces", namespaceRoot, () -> Files.exists(dir.resolve("run/namespace-ready")));
        init = ProcessHandle.of(namespaceRoot.pid()).orElseThrow().children().findFirst()
                .orElseThrow(() -> new IllegalStateException("unshare has no child")).pid();
    }

    private void bind(StringBuilder script, String source, String target) {
        script.append("mount --bind ").append(dir.resolve(source)).append(' ').append(target).append('\n');
    }

    /** A command inside the node's namespaces ({@code nsenter}). */
    List<String> inNode(String... command) {
        List<String> cmd = new ArrayList<>(List.of("nsenter", "-t", Long.toString(init), "-m", "-p", "--"));
        cmd.addAll(List.of(command));
        return cmd;
    }

    private void startContainerd() {
        write("state/containerd.toml", """
                version = 2
                root = "/var/lib/containerd"
                state = "/run/containerd"
                disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
                  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]
                [grpc]
                  address = "/run/containerd/containerd.sock"
                [ttrpc]
                  address = "/run/containerd/containerd.sock.ttrpc"
                [plugins."io.containerd.internal.v1.opt"]
                  path = "%s"
                [plugins."io.containerd.grpc.v1.cri"]
                  sandbox_image = "%s"
                  stream_server_address = "127.0.0.1"
                  stream_server_port = "0"
                  netns_mounts_under_state_dir = true
                  # without CAP_SYS_RESOURCE no process may lower its oom_score_adj: keep every container's at containerd's own
                  restrict_oom_score_adj = true
                  enable_selinux = false
                  [plugins."io.containerd.grpc.v1.cri".containerd]
                    snapshotter = "overlayfs"
                    default_runtime_name = "runc"
                    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
                      runtime_type = "io.containerd.runc.v2"
                      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
                        SystemdCgroup = false
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    bin_dir = "/usr/lib/cni"
                    conf_dir = "%s"
                    max_conf_num = 1
                """.formatted(dir.resolve("state/opt"), LocalImages.PAUSE, dir.resolve("state/cni-conf")));
        containerd = ChildProcess.start("containerd", inNode("containerd", "--config", dir.resolve("state/containerd.toml").toString()),
                dir.resolve("logs/containerd.log"), Map.of());
        await("containerd to answer", containerd, () -> ctr(false, "version").exit() == 0);
        note("containerd answers");
    }

    /** {@code ctr -n k8s.io ARGS} inside the node. */
    Host.Result ctr(boolean check, String... args) {
        List<String> cmd = new ArrayList<>(List.of("ctr", "--address", "/run/containerd/containerd.sock", "-n", "k8s.io"));
        cmd.addAll(List.of(args));
        return Host.run(inNode(cmd.toArray(String[]::new)), check);
    }

    private void startKubelet() {
        Cgroups.create(layout.cgroupRoot());
        write("state/kubelet-config.yaml", """
                apiVersion: kubelet.config.k8s.io/v1beta1
                kind: KubeletConfiguration
                address: %s
                port: 10250
                readOnlyPort: 0
                healthzBindAddress: 127.0.0.1
                healthzPort: 0
                authentication:
                  anonymous: {enabled: false}
                  webhook: {enabled: true}
                  x509: {clientCAFile: %s}
                authorization:
                  mode: Webhook
                cgroupDriver: cgroupfs
                cgroupRoot: /%s
                cgroupsPerQOS: true
                enforceNodeAllocatable: [pods]
                failSwapOn: false
                # the kubelet's own; the default -999 needs CAP_SYS_RESOURCE
                oomScoreAdj: 0
                makeIPTablesUtilChains: false
                protectKernelDefaults: false
                resolvConf: %s
                clusterDomain: cluster.local
                registerNode: true
                serializeImagePulls: false
                maxPods: 110
                hairpinMode: none
                evictionHard: {memory.available: 100Mi, nodefs.available: 2%%, imagefs.available: 2%%}
                imageGCHighThresholdPercent: 99
                imageGCLowThresholdPercent: 98
                volumePluginDir: /var/lib/kubelet/volume-plugins
                nodeStatusUpdateFrequency: 10s
                """.formatted(layout.nodeIp(), plane.caCertificate(), layout.cgroupRoot(), dir.resolve("state/resolv.conf")));
        startKubeletProcess();
    }

    private void startKubeletProcess() {
        kubelet = ChildProcess.start("kubelet", inNode(plane.program("kubelet").toString(),
                "--config=" + dir.resolve("state/kubelet-config.yaml"), "--kubeconfig=" + plane.kubeconfig("kubelet"),
                "--root-dir=/var/lib/kubelet", "--container-runtime-endpoint=unix:///run/containerd/containerd.sock",
                "--pod-infra-container-image=" + LocalImages.PAUSE, "--hostname-override=" + NODE_NAME, "--node-ip=" + layout.nodeIp(),
                "--v=1"), dir.resolve("logs/kubelet.log"), Map.of());
    }

    private void awaitNodeReady() {
        await("node " + NODE_NAME + " to be Ready and without the not-ready taint", kubelet, this::readyAndSchedulable);
    }

    private boolean readyAndSchedulable() {
        Node n = plane.adminClient().nodes().withName(NODE_NAME).get();
        return n != null && ready(n) && (n.getSpec().getTaints() == null || n.getSpec().getTaints().isEmpty());
    }

    private static boolean ready(Node n) {
        return n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The node's Ready condition now ({@code True}, {@code False}, {@code Unknown}). */
    public String readyStatus() {
        Node n = plane.adminClient().nodes().withName(NODE_NAME).get();
        return n.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).map(NodeCondition::getStatus)
                .findFirst().orElse("Unknown");
    }

    /** Stops the kubelet (SIGTERM); its pods keep running, the node stops reporting. */
    public void stopKubelet() {
        // nsenter forks into the node's PID namespace and does not pass a signal on: the kubelet is its child
        ProcessHandle.of(kubelet.pid()).ifPresent(nsenter -> nsenter.children().forEach(ProcessHandle::destroy));
        kubelet.stop(Duration.ofSeconds(20));
        note("kubelet stopped");
    }

    /** Starts the kubelet again and waits until the node is Ready. */
    public void startKubeletAgain() {
        startKubeletProcess();
        awaitNodeReady();
        note("kubelet started again; node Ready");
    }

    // ---- what tests use ----

    public KubeControlPlane plane() {
        return plane;
    }

    public KubernetesClient adminClient() {
        return plane.adminClient();
    }

    public TestNamespace newNamespace(String hint) {
        return plane.newNamespace(hint);
    }

    /** Imports a container image archive ({@code docker save} or OCI layout tar) into the node's containerd. */
    public void importImage(Path archive) {
        ctr(true, "images", "import", "--no-unpack", archive.toAbsolutePath().toString());
        note("imported " + archive.getFileName());
    }

    /**
     * metrics.k8s.io answers for the pods of this namespace from {@code source} instead of this node's kubelet
     * (pods that a fake kubelet runs beside the real one, by the thousand).
     */
    public void podsElsewhere(String namespace, ResourceMetrics source) {
        elsewhere.put(namespace, source);
    }

    /** The node's cgroup root (cgroup v1, cgroupfs): the pods' cgroups are under it in each hierarchy. */
    String cgroupRoot() {
        return layout.cgroupRoot();
    }

    /** Upstream's HPA controller (off until a test turns it on). */
    public UpstreamHpaController upstreamHpaController() {
        return upstreamHpaController;
    }

    /** What metrics.k8s.io answers for the pods of a namespace now, as {@code kubectl top pods} would: pod -> millicores. */
    @SuppressWarnings("unchecked")
    public Map<String, Long> podCpuMillis(String namespace) {
        var podMetrics = new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder().withGroup("metrics.k8s.io")
                .withVersion("v1beta1").withKind("PodMetrics").withPlural("pods").withNamespaced(true).build();
        Map<String, Long> out = new java.util.TreeMap<>();
        for (var pm : adminClient().genericKubernetesResources(podMetrics).inNamespace(namespace).list().getItems()) {
            long total = 0;
            for (Map<String, Object> c : (List<Map<String, Object>>) pm.getAdditionalProperties().get("containers")) {
                String cpu = (String) ((Map<String, Object>) c.get("usage")).get("cpu");
                total += new io.fabric8.kubernetes.api.model.Quantity(cpu).getNumericalAmount().movePointRight(3).longValue();
            }
            out.put(pm.getMetadata().getName(), total);
        }
        return out;
    }

    /** The metrics.k8s.io source of this node (metrics-server's behaviour over the kubelet's resource metrics). */
    public KubeletResourceMetrics resourceMetrics() {
        return resourceMetrics;
    }

    Layout layout() {
        return layout;
    }

    /** The node's directory: logs of containerd and the kubelet, its state, the images made here. */
    public Path directory() {
        return dir;
    }

    /** A line of the node's timeline, with the seconds since its start (printed by the tests' logs). */
    public synchronized void note(String what) {
        String line = String.format("node +%6.1fs %s", Duration.between(started, Instant.now()).toMillis() / 1000.0, what);
        timeline.add(line);
        System.out.println(line);
    }

    private void write(String relative, String text) {
        try {
            Path p = dir.resolve(relative);
            Files.createDirectories(p.getParent());
            Files.writeString(p, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void await(String what, ChildProcess process, BooleanSupplier condition) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            process.checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + START_TIMEOUT + " waiting for " + what + "; last lines of "
                        + process.log() + ":\n" + process.tail(30));
            }
            try {
                TimeUnit.MILLISECONDS.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what);
            }
        }
    }

    /**
     * Stops everything: the metrics scraper, the kubelet, then the node's namespaces (every container with
     * them), its cgroups and bridge, the Service proxy, the control plane. Nothing stays mounted or running.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: this is the hook
        }
        upstreamHpaController.off();
        if (resourceMetrics != null) {
            resourceMetrics.close();
        }
        if (kubelet != null) {
            kubelet.stop(Duration.ofSeconds(10));
        }
        if (containerd != null) {
            containerd.stop(Duration.ofSeconds(5));
        }
        if (namespaceRoot != null) {
            namespaceRoot.kill(); // --kill-child: the namespace's init, and every process in the namespace, die with it
        }
        Cgroups.remove(layout.cgroupRoot());
        if (bridgeCreated) {
            Host.run(List.of("ip", "link", "del", layout.bridge()), false);
        }
        if (serviceProxy != null) {
            serviceProxy.close();
        }
        if (plane != null) {
            plane.close();
        }
    }

    @Override
    public String toString() {
        return "real node " + NODE_NAME + " (" + dir + ")";
    }
}
