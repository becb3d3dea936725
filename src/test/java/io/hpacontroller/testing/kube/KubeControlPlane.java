package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.hpacontroller.cli.KubeConnection;
import io.hpacontroller.testing.Waits;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A throwaway Kubernetes control plane on loopback, started from the real binaries (see
 * {@code package-info.java} for the test-facing summary): etcd, kube-apiserver (RBAC,
 * {@code --anonymous-auth=false}, the aggregation layer, a JSON audit log) and kube-controller-manager
 * with the controllers of {@link Options}; a {@link Kubelet} for its one Node and a
 * {@link FakeMetricsServer} behind the metrics APIServices. Everything lives in a fresh directory under
 * {@code target/kube/} (certificates, etcd data, logs, audit log, kubeconfigs) on free ports.
 *
 * <p>{@link #close()} stops what it started (kube-controller-manager, then kube-apiserver, then etcd); a
 * shutdown hook does the same when the JVM exits, and the {@link Watchdog} when it is killed.
 */
public final class KubeControlPlane implements AutoCloseable {

    /** kube-controller-manager's controllers for workloads: Deployments, ReplicaSets, StatefulSets, default ServiceAccounts. */
    public static final List<String> WORKLOAD_CONTROLLERS = List.of("deployment", "replicaset", "statefulset", "serviceaccount");
    private static final Duration START_TIMEOUT = Waits.STATE;
    /** kube-apiserver stops listening at once on SIGTERM but can hang with watches open (see down.sh): not waited for long. */
    private static final Duration API_SERVER_GRACE = Duration.ofSeconds(3);
    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final ResourceDefinitionContext API_SERVICES = new ResourceDefinitionContext.Builder()
            .withGroup("apiregistration.k8s.io").withVersion("v1").withKind("APIService").withPlural("apiservices").withNamespaced(false).build();

    /**
     * What to start.
     *
     * @param name                   names the directory under target/kube
     * @param controllers            kube-controller-manager's {@code --controllers}
     * @param controllerManagerFlags more kube-controller-manager flags, e.g. {@code --horizontal-pod-autoscaler-sync-period=1s}
     * @param realNodes              null: the fixture's {@link Kubelet} plays the one Node; otherwise real kubelets join
     */
    public record Options(String name, List<String> controllers, List<String> controllerManagerFlags, RealNodes realNodes) {
        public Options {
            controllers = List.copyOf(controllers);
            controllerManagerFlags = List.copyOf(controllerManagerFlags);
        }

        /** The workload controllers only: whatever scales HPAs is the test's. */
        public static Options workloads(String name) {
            return new Options(name, WORKLOAD_CONTROLLERS, List.of(), null);
        }

        /** Also upstream's HPA controller ({@code horizontalpodautoscaling}), with these flags. */
        public Options withUpstreamHpaController(String... flags) {
            List<String> c = new ArrayList<>(controllers);
            c.add("horizontalpodautoscaling");
            List<String> f = new ArrayList<>(controllerManagerFlags);
            f.addAll(List.of(flags));
            return new Options(name, c, f, realNodes);
        }

        /**
         * A control plane that real kubelets join ({@code io.hpacontroller.testing.node.RealNode}): Node and RBAC
         * authorization with the NodeRestriction admission plugin, the API server's client certificate for the
         * kubelets, kube-scheduler, and the controllers real pods need besides the workload ones.
         */
        public Options withRealNodes(RealNodes nodes) {
            List<String> c = new ArrayList<>(controllers);
            c.addAll(RealNodes.CONTROLLERS);
            List<String> f = new ArrayList<>(controllerManagerFlags);
            f.addAll(nodes.controllerManagerFlags());
            return new Options(name, c, f, nodes);
        }
    }

    /**
     * What a control plane for real kubelets needs from the node's side.
     *
     * @param nodeName               the Node the kubelet registers (its client certificate is issued for it)
     * @param serviceRange           {@code --service-cluster-ip-range}; its first address is the {@code kubernetes} Service's,
     *                               which the node forwards to the API server (the serving certificate names it)
     * @param controllerManagerFlags kube-controller-manager flags for the node's lifecycle (e.g. a shorter grace period)
     * @param resourceMetrics        what metrics.k8s.io answers, from the kubelet (the fake metrics server keeps custom and external)
     */
    public record RealNodes(String nodeName, String serviceRange, List<String> controllerManagerFlags,
                            java.util.function.Function<KubernetesClient, ResourceMetrics> resourceMetrics) {
        /** root-ca-cert-publisher (pods mount kube-root-ca.crt), garbagecollector, nodelifecycle (removes the not-ready taint). */
        static final List<String> CONTROLLERS = List.of("root-ca-cert-publisher", "garbagecollector", "nodelifecycle");

        /** The {@code kubernetes} Service's address: the first of the range. */
        public String serviceIp() {
            String[] ip = serviceRange.substring(0, serviceRange.indexOf('/')).split("\\.");
            return ip[0] + "." + ip[1] + "." + ip[2] + "." + (Integer.parseInt(ip[3]) + 1);
        }
    }

    private final Options options;
    private final Path dir;
    private final Path pki;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook = new Thread(this::close, "kube-control-plane-shutdown");
    private KubeBinaries.Programs programs;
    private Pki.Issued ca;
    private int etcdPort;
    private int etcdPeerPort;
    private int apiPort;
    private ChildProcess etcd;
    private volatile ChildProcess apiServer;
    private volatile ChildProcess controllerManager;
    private List<String> controllerManagerArgs;
    private ChildProcess scheduler;
    private KubernetesClient admin;
    private Kubelet kubelet;
    private FakeMetricsServer metrics;
    private AuditLog audit;

    private KubeControlPlane(Options options) {
        this.options = options;
        try {
            Path root = Path.of(System.getProperty("user.dir"), "target", "kube");
            Files.createDirectories(root);
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss"));
            this.dir = Files.createTempDirectory(root, options.name() + "-" + stamp + "-");
            this.pki = Files.createDirectories(dir.resolve("pki"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a control plane and waits until it serves (about 10 s on 2 cores). */
    public static KubeControlPlane start(Options options) {
        KubeControlPlane plane = new KubeControlPlane(options);
        Runtime.getRuntime().addShutdownHook(plane.shutdownHook);
        try {
            plane.boot();
            return plane;
        } catch (RuntimeException | Error e) {
            plane.close();
            throw e;
        }
    }

    private void boot() {
        programs = KubeBinaries.locate();
        etcdPort = freePort();
        etcdPeerPort = freePort();
        apiPort = freePort();
        etcd = ChildProcess.start("etcd", List.of(programs.etcd().toString(), "--name", "test", "--data-dir", dir.resolve("etcd").toString(),
                "--logger", "zap", "--log-level", "warn",
                "--listen-client-urls", "http://127.0.0.1:" + etcdPort, "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls", "http://127.0.0.1:" + etcdPeerPort, "--initial-advertise-peer-urls", "http://127.0.0.1:" + etcdPeerPort,
                "--initial-cluster", "test=http://127.0.0.1:" + etcdPeerPort, "--initial-cluster-state", "new",
                "--unsafe-no-fsync"), dir.resolve("logs/etcd.log"), Map.of());
        writePki(); // while etcd starts
        writeAuditPolicy();
        await("etcd to be healthy", etcd, () -> httpOk("http://127.0.0.1:" + etcdPort + "/health"));
        startApiServer();
        controllerManagerArgs = new ArrayList<>(options.controllers());
        controllerManager = ChildProcess.start("kube-controller-manager", controllerManagerCommand(options.controllers(), options.controllerManagerFlags()),
                dir.resolve("logs/kube-controller-manager.log"), Map.of());
        admin = client(adminConfig());
        audit = new AuditLog(dir.resolve("audit.log"), admin);
        if (options.realNodes() == null) {
            kubelet = new Kubelet(admin);
            kubelet.start();
            metrics = new FakeMetricsServer(kubelet, null);
        } else {
            scheduler = ChildProcess.start("kube-scheduler", List.of(programs.scheduler().toString(),
                    "--kubeconfig=" + dir.resolve("scheduler.kubeconfig"), "--authentication-kubeconfig=" + dir.resolve("scheduler.kubeconfig"),
                    "--authorization-kubeconfig=" + dir.resolve("scheduler.kubeconfig"), "--leader-elect=false", "--secure-port=0"),
                    dir.resolve("logs/kube-scheduler.log"), Map.of());
            metrics = new FakeMetricsServer(new ApiPods(admin), options.realNodes().resourceMetrics().apply(admin));
        }
        int metricsPort = metrics.start(Pki.server(ca, "fake-metrics", List.of(FakeMetricsServer.SERVICE + "." + FakeMetricsServer.SERVICE_NAMESPACE + ".svc", "localhost"),
                List.of("127.0.0.1")));
        registerMetricsApis(metricsPort);
        // the serviceaccount controller gives every namespace its "default" ServiceAccount: the sign it runs
        await("kube-controller-manager to run (the default ServiceAccount of namespace default)", controllerManager,
                () -> admin.serviceAccounts().inNamespace("default").withName("default").get() != null);
        await("the metrics APIServices to be Available", apiServer, this::metricsApisAvailable);
    }

    // ---- certificates and files ----

    private void writePki() {
        ca = Pki.ca("test-kubernetes-ca").writeTo(pki, "ca");
        Pki.Issued frontProxyCa = Pki.ca("test-front-proxy-ca").writeTo(pki, "front-proxy-ca");
        Pki.server(ca, "kube-apiserver", List.of("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local"), List.of("127.0.0.1", serviceIp())).writeTo(pki, "apiserver");
        Pki.client(ca, "test-admin", List.of("system:masters"), Pki.rsa()).writeTo(pki, "admin"); // read by fabric8
        Pki.client(ca, "system:kube-controller-manager", List.of("system:masters"), Pki.ec()).writeTo(pki, "controller-manager");
        Pki.client(frontProxyCa, "front-proxy-client", List.of(), Pki.ec()).writeTo(pki, "front-proxy-client");
        var sa = Pki.ec(); // service-account tokens signed ES256
        Pki.write(pki.resolve("sa.key"), Pki.pem("PRIVATE KEY", sa.getPrivate().getEncoded()));
        Pki.write(pki.resolve("sa.pub"), Pki.pem("PUBLIC KEY", sa.getPublic().getEncoded()));
        writeKubeconfig(dir.resolve("controller-manager.kubeconfig"), certUser("controller-manager"));
        writeKubeconfig(dir.resolve("admin.kubeconfig"), certUser("admin"));
        if (options.realNodes() != null) {
            String node = options.realNodes().nodeName();
            Pki.client(ca, "system:node:" + node, List.of("system:nodes"), Pki.ec()).writeTo(pki, "kubelet");
            Pki.client(ca, "system:kube-scheduler", List.of(), Pki.ec()).writeTo(pki, "scheduler");
            Pki.client(ca, "kube-apiserver-kubelet-client", List.of("system:masters"), Pki.ec()).writeTo(pki, "apiserver-kubelet-client");
            writeKubeconfig(dir.resolve("kubelet.kubeconfig"), certUser("kubelet"));
            writeKubeconfig(dir.resolve("scheduler.kubeconfig"), certUser("scheduler"));
        }
    }

    private String serviceRange() {
        return options.realNodes() == null ? "10.0.0.0/24" : options.realNodes().serviceRange();
    }

    private String serviceIp() {
        return options.realNodes() == null ? "10.0.0.1" : options.realNodes().serviceIp();
    }

    private void writeAuditPolicy() {
        // every request but the API server's own and health checks, at Metadata level: who, what, the status code
        Pki.write(dir.resolve("audit-policy.yaml"), """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: ["RequestReceived", "ResponseStarted"]
                rules:
                - level: None
                  users: ["system:apiserver"]
                - level: None
                  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version", "/openapi*", "/metrics"]
                - level: Metadata
                """);
    }

    private String certUser(String name) {
        return "    client-certificate-data: " + base64(pki.resolve(name + ".crt")) + "\n"
                + "    client-key-data: " + base64(pki.resolve(name + ".key")) + "\n";
    }

    private static String base64(Path file) {
        try {
            return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a kubeconfig for this API server; {@code user} is the YAML of the user's credentials (indented 4). */
    private Path writeKubeconfig(Path file, String user) {
        Pki.write(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                users:
                - name: user
                  user:
                %scontexts:
                - name: test
                  context:
                    cluster: test
                    user: user
                    namespace: default
                current-context: test
                """.formatted(url(), base64(pki.resolve("ca.crt")), user));
        file.toFile().setReadable(false, false);
        file.toFile().setReadable(true, true);
        return file;
    }

    // ---- processes ----

    private List<String> apiServerCommand() {
        List<String> cmd = new ArrayList<>(List.of(programs.apiServer().toString(),
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--service-cluster-ip-range=" + serviceRange(), "--endpoint-reconciler-type=none",
                "--anonymous-auth=false",
                "--client-ca-file=" + pki.resolve("ca.crt"), "--tls-cert-file=" + pki.resolve("apiserver.crt"),
                "--tls-private-key-file=" + pki.resolve("apiserver.key"),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + pki.resolve("sa.pub"), "--service-account-signing-key-file=" + pki.resolve("sa.key"),
                "--requestheader-client-ca-file=" + pki.resolve("front-proxy-ca.crt"), "--requestheader-allowed-names=front-proxy-client",
                "--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
                "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                "--proxy-client-cert-file=" + pki.resolve("front-proxy-client.crt"), "--proxy-client-key-file=" + pki.resolve("front-proxy-client.key"),
                "--audit-policy-file=" + dir.resolve("audit-policy.yaml"), "--audit-log-path=" + dir.resolve("audit.log"),
                "--audit-log-format=json", "--audit-log-maxsize=2048", "--audit-log-mode=blocking",
                "--profiling=false"));
        if (options.realNodes() == null) {
            cmd.add("--authorization-mode=RBAC");
        } else { // as kubeadm: kubelets authorized by the Node authorizer, and the API server's client certificate for them
            cmd.addAll(List.of("--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
                    "--kubelet-client-certificate=" + pki.resolve("apiserver-kubelet-client.crt"),
                    "--kubelet-client-key=" + pki.resolve("apiserver-kubelet-client.key"),
                    "--kubelet-preferred-address-types=InternalIP,Hostname"));
        }
        return cmd;
    }

    private List<String> controllerManagerCommand(List<String> controllers, List<String> flags) {
        List<String> cmd = new ArrayList<>(List.of(programs.controllerManager().toString(),
                "--kubeconfig=" + dir.resolve("controller-manager.kubeconfig"),
                "--controllers=" + String.join(",", controllers),
                // one instance: no lease to lose while a test restarts the API server
                "--leader-elect=false", "--secure-port=0", "--kube-api-qps=200", "--kube-api-burst=400"));
        cmd.addAll(flags);
        return cmd;
    }

    /**
     * Restarts kube-controller-manager with the controllers of {@link Options} plus {@code moreControllers} and
     * these extra flags (e.g. upstream's HPA controller on a real node for one scenario, then off again).
     */
    public synchronized void restartControllerManager(List<String> moreControllers, List<String> moreFlags) {
        controllerManager.stop(Duration.ofSeconds(10));
        List<String> controllers = new ArrayList<>(options.controllers());
        controllers.addAll(moreControllers);
        List<String> flags = new ArrayList<>(options.controllerManagerFlags());
        flags.addAll(moreFlags);
        controllerManagerArgs = controllers;
        controllerManager = ChildProcess.start("kube-controller-manager", controllerManagerCommand(controllers, flags),
                dir.resolve("logs/kube-controller-manager.log"), Map.of());
    }

    /** kube-controller-manager's controllers now. */
    public synchronized List<String> controllerManagerControllers() {
        return List.copyOf(controllerManagerArgs);
    }

    private void startApiServer() {
        apiServer = ChildProcess.start("kube-apiserver", apiServerCommand(), dir.resolve("logs/kube-apiserver.log"), Map.of());
        // /readyz with the admin's certificate and no retries
        try (KubernetesClient probe = client(new ConfigBuilder(adminConfig()).withRequestRetryBackoffLimit(0).withRequestTimeout(5000)
                .withConnectionTimeout(2000).build())) {
            await("kube-apiserver to be ready", apiServer, () -> "ok".equals(probe.raw("/readyz")));
        }
    }

    /**
     * Stops kube-apiserver (SIGTERM; SIGKILL after {@link #API_SERVER_GRACE}) and starts it again on the
     * same port and etcd, as an upgrade or a crash of the control plane would. Clients reconnect.
     */
    public void restartApiServer() {
        apiServer.stop(API_SERVER_GRACE);
        startApiServer();
    }

    private void await(String what, ChildProcess process, BooleanSupplier condition) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            process.checkAlive();
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                // not yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + START_TIMEOUT + " waiting for " + what + "; last lines of "
                        + process.log() + ":\n" + process.tail(30));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what);
            }
        }
    }

    private static boolean httpOk(String url) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }


    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- the metrics APIs ----

    private void registerMetricsApis(int port) {
        admin.services().inNamespace(FakeMetricsServer.SERVICE_NAMESPACE).resource(new ServiceBuilder().withNewMetadata()
                .withName(FakeMetricsServer.SERVICE).withNamespace(FakeMetricsServer.SERVICE_NAMESPACE).endMetadata()
                // an ExternalName: with aggregator routing off the API server dials localhost:PORT (Endpoints may not be loopback)
                .withNewSpec().withType("ExternalName").withExternalName("localhost").endSpec().build()).create();
        String caBundle = base64(pki.resolve("ca.crt"));
        for (String[] gv : List.of(new String[] {"metrics.k8s.io", "v1beta1", "100"}, new String[] {"custom.metrics.k8s.io", "v1beta2", "200"},
                new String[] {"custom.metrics.k8s.io", "v1beta1", "100"}, new String[] {"external.metrics.k8s.io", "v1beta1", "100"})) {
            Map<String, Object> spec = Map.of("group", gv[0], "version", gv[1], "groupPriorityMinimum", 100,
                    "versionPriority", Integer.parseInt(gv[2]), "caBundle", caBundle,
                    "service", Map.of("namespace", FakeMetricsServer.SERVICE_NAMESPACE, "name", FakeMetricsServer.SERVICE, "port", port));
            admin.genericKubernetesResources(API_SERVICES).resource(new GenericKubernetesResourceBuilder()
                    .withApiVersion("apiregistration.k8s.io/v1").withKind("APIService").withNewMetadata().withName(gv[1] + "." + gv[0]).endMetadata()
                    .addToAdditionalProperties("spec", spec).build()).create();
        }
    }

    @SuppressWarnings("unchecked")
    private boolean metricsApisAvailable() {
        for (GenericKubernetesResource s : admin.genericKubernetesResources(API_SERVICES).list().getItems()) {
            Map<String, Object> spec = (Map<String, Object>) s.getAdditionalProperties().get("spec");
            if (spec == null || spec.get("service") == null) {
                continue; // served by kube-apiserver itself
            }
            Map<String, Object> status = (Map<String, Object>) s.getAdditionalProperties().get("status");
            List<Map<String, Object>> conditions = status == null ? List.of() : (List<Map<String, Object>>) status.getOrDefault("conditions", List.of());
            if (conditions.stream().noneMatch(c -> "Available".equals(c.get("type")) && "True".equals(c.get("status")))) {
                return false;
            }
        }
        return true;
    }

    // ---- clients ----

    /** https://127.0.0.1:PORT */
    public String url() {
        return "https://127.0.0.1:" + apiPort;
    }

    public Path directory() {
        return dir;
    }

    private Config adminConfig() {
        return new ConfigBuilder(Config.empty()).withMasterUrl(url()).withCaCertFile(pki.resolve("ca.crt").toString())
                .withClientCertFile(pki.resolve("admin.crt").toString()).withClientKeyFile(pki.resolve("admin.key").toString())
                .withRequestRetryBackoffLimit(3).withRequestTimeout(20_000).withNamespace("default").build();
    }

    private static KubernetesClient client(Config config) {
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** The cluster admin (group system:masters), for setup and assertions. Shared: do not close it. */
    public KubernetesClient adminClient() {
        return admin;
    }

    /** A new client that acts as this user and groups (impersonation by the admin). Close it. */
    public KubernetesClient clientAs(String user, String... groups) {
        return client(new ConfigBuilder(adminConfig()).withImpersonateUsername(user).withImpersonateGroups(groups).build());
    }

    /**
     * A new client authenticated as a ServiceAccount with a token minted by the TokenRequest API, built
     * the way {@code run} builds its client ({@link KubeConnection}: no retries, 10 s timeouts). Close it.
     */
    public KubernetesClient clientAsServiceAccount(String namespace, String name) {
        try {
            return KubeConnection.resolve(kubeconfigForServiceAccount(namespace, name, null), null).connect(Duration.ofSeconds(10), 10);
        } catch (KubeConnection.Problem e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A kubeconfig file with a fresh token of the ServiceAccount (valid for an hour). With {@code pod}, the
     * token is bound to that Pod of the ServiceAccount's namespace, as a kubelet mounts it: the audit log
     * then names the pod ({@link AuditEvent#podName()}), which tells replicas apart.
     */
    public Path kubeconfigForServiceAccount(String namespace, String name, String pod) {
        TokenRequestBuilder request = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec();
        if (pod != null) {
            String uid = admin.pods().inNamespace(namespace).withName(pod).get().getMetadata().getUid();
            request.editSpec().withNewBoundObjectRef().withApiVersion("v1").withKind("Pod").withName(pod).withUid(uid).endBoundObjectRef().endSpec();
        }
        TokenRequest answer = admin.serviceAccounts().inNamespace(namespace).withName(name).tokenRequest(request.build());
        Path file = dir.resolve("sa-" + namespace + "-" + name + (pod == null ? "" : "-" + pod) + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ".kubeconfig");
        return writeKubeconfig(file, "    token: " + answer.getStatus().getToken() + "\n");
    }

    /** A kubeconfig of the fixture's (e.g. {@code kubelet.kubeconfig} for a real node's kubelet). */
    public Path kubeconfig(String name) {
        return dir.resolve(name + ".kubeconfig");
    }

    /** The cluster CA's certificate file (kubelets verify client certificates with it). */
    public Path caCertificate() {
        return pki.resolve("ca.crt");
    }

    /** The admin's kubeconfig file (for kubectl). */
    public Path adminKubeconfig() {
        return dir.resolve("admin.kubeconfig");
    }

    /** Runs kubectl as the admin; returns its output, fails on a non-zero exit. */
    public String kubectl(String... args) {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", adminKubeconfig().toString(),
                "--cache-dir", dir.resolve("kubectl-cache").toString()));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("kubectl " + String.join(" ", args) + " did not finish");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("kubectl " + String.join(" ", args) + " exited " + p.exitValue() + ":\n" + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("kubectl is needed (Debian: apt-get install -y kubectl, or from the Kubernetes packages)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    // ---- what tests use ----

    /** A new namespace (with its default ServiceAccount, so pods can be created in it). */
    public TestNamespace newNamespace(String hint) {
        String base = hint.toLowerCase().replaceAll("[^a-z0-9-]", "-");
        String name = base.substring(0, Math.min(base.length(), 50)).replaceAll("-+$", "") + "-" + NAMESPACES.incrementAndGet();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        String ns = name;
        await("the default ServiceAccount of namespace " + ns, controllerManager,
                () -> admin.serviceAccounts().inNamespace(ns).withName("default").get() != null);
        return new TestNamespace(this, name);
    }

    /** kube-apiserver's process id (for its CPU time in /proc). */
    long apiServerPid() {
        return apiServer.pid();
    }

    long etcdPid() {
        return etcd.pid();
    }

    /** kube-apiserver's port on 127.0.0.1. */
    public int apiPort() {
        return apiPort;
    }

    /** The program of this name ({@code kubelet}, {@code kube-controller-manager}...), from where the control plane's came. */
    public Path program(String name) {
        return switch (name) {
            case "kube-scheduler" -> programs.scheduler();
            case "kubelet" -> programs.kubelet();
            case "kube-controller-manager" -> programs.controllerManager();
            case "kube-apiserver" -> programs.apiServer();
            default -> throw new IllegalArgumentException(name);
        };
    }

    KubeBinaries.Programs programs() {
        return programs;
    }

    /**
     * A kubeconfig with a new client certificate for this user and groups (e.g. a second
     * kube-controller-manager whose requests the audit log should tell apart from the fixture's).
     */
    public Path kubeconfigForCertificate(String user, String... groups) {
        String name = "cert-" + user.replaceAll("[^a-zA-Z0-9-]", "-");
        Pki.client(ca, user, List.of(groups), Pki.ec()).writeTo(pki, name);
        return writeKubeconfig(dir.resolve(name + ".kubeconfig"), certUser(name));
    }

    public AuditLog audit() {
        return audit;
    }

    /**
     * Writes a value straight into etcd (its v3 JSON gateway), past the API server and its validation: an object as one
     * stored before a rule that refuses it existed (an older CRD, an older API server). The API server reads it as any
     * other, and its watch cache delivers it to the informers. {@code key} is etcd's, e.g.
     * {@code /registry/GROUP/PLURAL/NAMESPACE/NAME} for a custom resource.
     */
    public void etcdPut(String key, String value) {
        Base64.Encoder b64 = Base64.getEncoder();
        String body = "{\"key\":\"" + b64.encodeToString(key.getBytes(StandardCharsets.UTF_8)) + "\",\"value\":\""
                + b64.encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "\"}";
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + etcdPort + "/v3/kv/put"))
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("etcd answered " + r.statusCode() + " to a put of " + key + ": " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + key + " to etcd", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public FakeMetricsServer metrics() {
        return metrics;
    }

    public Kubelet kubelet() {
        return kubelet;
    }

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
        if (kubelet != null) {
            kubelet.close();
        }
        if (scheduler != null) {
            scheduler.stop(Duration.ofSeconds(10));
        }
        if (controllerManager != null) {
            controllerManager.stop(Duration.ofSeconds(10));
        }
        if (admin != null) {
            admin.close();
        }
        if (apiServer != null) {
            apiServer.stop(API_SERVER_GRACE);
        }
        if (metrics != null) {
            metrics.close();
        }
        if (etcd != null) {
            etcd.stop(Duration.ofSeconds(10));
        }
        deleteTree(dir.resolve("etcd"));
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // leave it: target/ is cleaned by mvn clean
        }
    }

    @Override
    public String toString() {
        return "control plane " + options.name() + " at " + url() + " (" + dir + ")";
    }
}
