package io.hpacontroller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hpacontroller.api.RequestRateLimiter;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.LogFormat;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.ops.ServingCertificate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Set;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code run}: reconciles the HorizontalPodAutoscalers of the APIs of {@code --hpa-apis} (by default the
 * mirror API only, which the built-in controller does not see, so that a default run never fights it),
 * optionally shadows the built-in controller on autoscaling/v2 ({@code --shadow}), with
 * kube-controller-manager's flag names and defaults for the rest. Every flag can also come from an environment
 * variable: {@code HPA_CONTROLLER_} + the flag name in upper case with underscores.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 120, defaultValueProvider = EnvDefaults.class,
        customSynopsis = "hpa-controller run [FLAGS]", // the flags' list, where no flag name is broken across lines
        description = {"Runs the HPA controller against a cluster.",
                "Every flag can also be set by the environment variable HPA_CONTROLLER_<FLAG_NAME> (upper case, '-' as '_')."})
public final class RunCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    @Option(names = "--kubeconfig", paramLabel = "PATH",
            description = "Path to a kubeconfig. Default: $KUBECONFIG, else ~/.kube/config, else the pod's service account.")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME",
            description = "The kubeconfig context to use; one the kubeconfig does not define is an error. Default: its current-context.")
    String context;

    @Option(names = "--namespace", paramLabel = "NS", split = ",",
            description = "Namespace to watch; repeatable or comma-separated. Default: all namespaces.")
    List<String> namespaces = new ArrayList<>();

    @Option(names = "--hpa-apis", paramLabel = "APIS", split = ",", defaultValue = "autoscaling.hpa-controller.io/v1",
            description = {"The APIs whose HorizontalPodAutoscalers this controller reconciles, comma-separated: autoscaling/v2 (the built-in HPAs:"
                    + " only where the built-in HPA controller is off) and autoscaling.hpa-controller.io/v1 (the mirror API, which the built-in"
                    + " controller does not see; its CRD must be installed). Empty with --shadow: only shadow.", "(default: ${DEFAULT-VALUE})"})
    List<String> hpaApis = new ArrayList<>();

    @Option(names = "--shadow", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true", defaultValue = "false",
            description = "Compute every autoscaling/v2 HPA's decision read-only beside the built-in HPA controller, and export and log where"
                    + " the two differ; writes nothing for those HPAs (default: ${DEFAULT-VALUE}).")
    boolean shadow;

    @Option(names = "--persist-history", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            defaultValue = "true",
            description = {"Keep each reconciled HPA's history (stabilization windows, policy periods, metric failures) in the cluster, one"
                    + " HorizontalPodAutoscalerHistory object per HPA (its CRD must be installed), so that a restart or a new leader decides as the"
                    + " previous one would have; false: in memory only, as upstream (default: ${DEFAULT-VALUE})."})
    boolean persistHistory;

    @Option(names = "--horizontal-pod-autoscaler-sync-period", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "15s",
            description = "The period for syncing the number of pods in horizontal pod autoscaler (default: ${DEFAULT-VALUE}).")
    Duration syncPeriod;

    @Option(names = "--horizontal-pod-autoscaler-tolerance", paramLabel = "FLOAT",
            defaultValue = "0.1",
            description = "The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling (default: ${DEFAULT-VALUE}).")
    double tolerance;

    @Option(names = "--horizontal-pod-autoscaler-downscale-stabilization", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "5m",
            description = "The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period (default: ${DEFAULT-VALUE}).")
    Duration downscaleStabilization;

    @Option(names = "--horizontal-pod-autoscaler-cpu-initialization-period", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "5m",
            description = "The period after pod start when CPU samples might be skipped (default: ${DEFAULT-VALUE}).")
    Duration cpuInitializationPeriod;

    @Option(names = "--horizontal-pod-autoscaler-initial-readiness-delay", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "30s",
            description = "The period after pod start during which readiness changes will be treated as initial readiness (default: ${DEFAULT-VALUE}).")
    Duration initialReadinessDelay;

    @Option(names = "--concurrent-horizontal-pod-autoscaler-syncs", paramLabel = "INT",
            defaultValue = "5",
            description = "The number of horizontal pod autoscaler objects that are allowed to sync concurrently (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--sync-cadence", paramLabel = "CADENCE", defaultValue = "spread",
            description = {"When within each period an HPA is synced, unless its cadence annotation or spec.cadence says: spread (at a fixed"
                    + " phase of its own, the syncs of many HPAs spread evenly over the period) or fresh (just after its metrics pipeline's"
                    + " next sample becomes readable, as learned from the samples' timestamps) (default: ${DEFAULT-VALUE})."})
    String syncCadence;

    @Option(names = "--fresh-sync-spread", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "2s",
            description = {"The window the fresh cadence spreads the syncs due after one sample over, so that the metrics APIs are not hit"
                    + " all at once; at least 0 and shorter than the sync period (default: ${DEFAULT-VALUE})."})
    Duration freshSyncSpread;

    @Option(names = "--feature-gates", paramLabel = "GATES", converter = FeatureGates.Converter.class,
            defaultValue = "",
            description = "Feature gates as Name=bool pairs: HPAScaleToZero (default true), HPAConfigurableTolerance (GA, locked true).")
    FeatureGates featureGates;

    @Option(names = "--metrics-max-response-bytes", paramLabel = "BYTES",
            defaultValue = "64Mi",
            description = "The most bytes of one answer of a metrics API (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io) "
                    + "that is read, as a number or a quantity (64Mi); past it that HPA's metric fails (default: ${DEFAULT-VALUE}).")
    String metricsMaxResponseBytes;

    @Option(names = "--metrics-max-items", paramLabel = "INT", defaultValue = "50000",
            description = "The most items (pods, objects, series) of one answer of a metrics API that are read; past it that HPA's "
                    + "metric fails (default: ${DEFAULT-VALUE}).")
    int metricsMaxItems;

    @Option(names = "--metrics-request-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "10s",
            description = "The longest one request to a metrics API may take, its answer read; past it that HPA's metric fails "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration metricsRequestTimeout;

    @Option(names = "--metrics-max-inflight-per-source", paramLabel = "INT",
            defaultValue = "2",
            description = "The most requests in flight to one metrics API once it is slow (a request took longer than 2s, or half of "
                    + "--metrics-request-timeout); a fetch beyond them fails at once, so a slow API holds at most this many workers "
                    + "(default: ${DEFAULT-VALUE}).")
    int metricsMaxInFlightPerSource;

    @Option(names = "--kube-api-qps", paramLabel = "FLOAT", defaultValue = "-1",
            description = "QPS to use while talking with kubernetes apiserver: one token bucket for every request of this "
                    + "controller; negative, no client-side limit (default: ${DEFAULT-VALUE}; kube-controller-manager's is 20, "
                    + "per client); 0, client-go's default of 5.")
    float kubeApiQps;

    @Option(names = "--kube-api-burst", paramLabel = "INT", defaultValue = "30",
            description = "Burst to use while talking with kubernetes apiserver, with a positive --kube-api-qps; 0, client-go's default "
                    + "of 10 (default: ${DEFAULT-VALUE}).")
    int kubeApiBurst;

    @Option(names = "--leader-elect", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            defaultValue = "true",
            description = "Elect a leader on a Lease before reconciling; run several replicas for high availability (default: ${DEFAULT-VALUE}).")
    boolean leaderElect;

    @Option(names = "--leader-elect-lease-duration", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "15s",
            description = "How long a standby waits after the last renewal before taking over (default: ${DEFAULT-VALUE}).")
    Duration leaseDuration;

    @Option(names = "--leader-elect-renew-deadline", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "10s",
            description = "How long the leader keeps trying to renew before it gives up leading (default: ${DEFAULT-VALUE}).")
    Duration renewDeadline;

    @Option(names = "--leader-elect-retry-period", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "2s",
            description = "How often to try to acquire or renew the lease (default: ${DEFAULT-VALUE}).")
    Duration retryPeriod;

    @Option(names = "--leader-elect-resource-lock", paramLabel = "TYPE", defaultValue = "leases",
            description = "The type of resource object that is used for locking during leader election: leases, the only one"
                    + " (default: ${DEFAULT-VALUE}).")
    String leaseLock;

    @Option(names = "--leader-elect-resource-name", paramLabel = "NAME",
            defaultValue = "hpa-controller",
            description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
    String leaseName;

    @Option(names = "--leader-elect-resource-namespace", paramLabel = "NS",
            defaultValue = "${env:POD_NAMESPACE}",
            description = "Namespace of the Lease (default: $POD_NAMESPACE in a pod, else the kubeconfig context's namespace, else \"default\";"
                    + " explain looks there too).")
    String leaseNamespace;

    @Option(names = "--sharding", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true", defaultValue = "false",
            description = "Share the HPAs among all replicas on a ring of membership Leases (one per replica, labelled with"
                    + " --leader-elect-resource-name, with the --leader-elect-* timings) instead of electing one leader (default: ${DEFAULT-VALUE}).")
    boolean sharding;



    @Option(names = "--metrics-bind-address", paramLabel = "HOST:PORT",
            defaultValue = ":8080",
            description = "Where /metrics (Prometheus text format) and /decisions are served, over HTTPS unless --metrics-secure=false;"
                    + " \"0\" to disable (default: ${DEFAULT-VALUE}).")
    String metricsAddress;

    @Option(names = "--metrics-secure", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            defaultValue = "true",
            description = {"Serve /metrics and /decisions over HTTPS, each request authenticated (TokenReview of its bearer token) and authorized"
                    + " (SubjectAccessReview: get on its path, e.g. nonResourceURLs [\"/metrics\"]) by the API server, as kube-controller-manager"
                    + " does; false: plain HTTP to anyone who reaches the port (default: ${DEFAULT-VALUE})."})
    boolean metricsSecure;

    @Option(names = "--tls-cert-file", paramLabel = "PATH",
            description = "The metrics port's certificate, PEM (intermediates after it), with --tls-private-key-file. Default: a self-signed"
                    + " certificate made at start.")
    Path tlsCertFile;

    @Option(names = "--tls-private-key-file", paramLabel = "PATH",
            description = "The key of --tls-cert-file, PEM (PKCS #8, PKCS #1 RSA or SEC 1 EC).")
    Path tlsPrivateKeyFile;

    @Option(names = "--health-probe-bind-address", paramLabel = "HOST:PORT",
            defaultValue = ":8081",
            description = "Where /healthz and /readyz are served; \"0\" to disable (default: ${DEFAULT-VALUE}).")
    String healthAddress;

    @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (human-readable) or json (one JSON object per line) (default: ${DEFAULT-VALUE}).")
    String logFormat;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Everything the flags say, validated; usage errors become exit code 2. */
    ControllerRuntime.Settings settings() {
        CommandLine cl = spec.commandLine();
        if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
            throw new CommandLine.ParameterException(cl, "--horizontal-pod-autoscaler-tolerance must be a non-negative number, got " + tolerance);
        }
        if (syncPeriod.isZero()) {
            throw new CommandLine.ParameterException(cl, "--horizontal-pod-autoscaler-sync-period must be positive");
        }
        if (workers < 1) {
            throw new CommandLine.ParameterException(cl, "--concurrent-horizontal-pod-autoscaler-syncs must be at least 1, got " + workers);
        }
        if (Float.isNaN(kubeApiQps) || Float.isInfinite(kubeApiQps)) {
            throw new CommandLine.ParameterException(cl, "--kube-api-qps must be a number, got " + kubeApiQps);
        }
        if (kubeApiBurst < 0) {
            throw new CommandLine.ParameterException(cl, "--kube-api-burst must not be negative, got " + kubeApiBurst);
        }
        if (!"leases".equals(leaseLock)) {
            throw new CommandLine.ParameterException(cl, "--leader-elect-resource-lock must be leases, got '" + leaseLock
                    + "' (upstream's current releases accept only leases)");
        }
        if (!logFormat.equals("text") && !logFormat.equals("json")) {
            throw new CommandLine.ParameterException(cl, "--log-format must be text or json, got " + logFormat);
        }
        List<String> ns = namespaces == null ? List.of() : namespaces.stream().map(String::trim).filter(s -> !s.isEmpty()).distinct().toList();
        ControllerConfig decisions = new ControllerConfig(tolerance, cpuInitializationPeriod, initialReadinessDelay,
                downscaleStabilization, featureGates.scaleToZero());
        Set<HpaApi> apis = EnumSet.noneOf(HpaApi.class);
        for (String text : hpaApis == null ? List.<String>of() : hpaApis) {
            if (text.isBlank()) {
                continue;
            }
            HpaApi api = HpaApi.parse(text.trim());
            if (api == null) {
                throw new CommandLine.ParameterException(cl, "--hpa-apis: unknown API '" + text.trim() + "' (known: " + HpaApi.choices() + ")");
            }
            apis.add(api);
        }
        SyncCadence cadence = SyncCadence.ofFlag(syncCadence);
        if (cadence == null) {
            throw new CommandLine.ParameterException(cl, "--sync-cadence must be fresh or spread, got '" + syncCadence + "'");
        }
        // the default window under a sync period of 2 s or less: none (a window given, as a flag or its variable, is refused there)
        Duration spread = freshSyncSpread.compareTo(syncPeriod) >= 0 && !EnvDefaults.given(cl, "--fresh-sync-spread")
                ? Duration.ZERO : freshSyncSpread;
        ControllerOptions options;
        try {
            options = new ControllerOptions(decisions, syncPeriod, workers, ns, Duration.ofSeconds(10), apis, shadow, persistHistory,
                    new RestMetrics.Limits(bytes(cl, "--metrics-max-response-bytes", metricsMaxResponseBytes), metricsMaxItems,
                            metricsRequestTimeout, metricsMaxInFlightPerSource)).withCadence(cadence, spread);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        LeaseSettings election = null;
        if (leaderElect || sharding) {
            try {
                election = new LeaseSettings(leaseNamespaceGiven() ? leaseNamespace : "default", leaseName, identity(), leaseDuration, renewDeadline, retryPeriod);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, e.getMessage());
            }
        }
        InetSocketAddress metrics = address(cl, "--metrics-bind-address", metricsAddress);
        return new ControllerRuntime.Settings(options, election, metrics, metricsServing(cl, metrics != null),
                address(cl, "--health-probe-bind-address", healthAddress), Duration.ofSeconds(20));
    }

    private boolean leaseNamespaceGiven() {
        return leaseNamespace != null && !leaseNamespace.isBlank();
    }

    /**
     * The Lease in the kubeconfig context's namespace when neither --leader-elect-resource-namespace nor $POD_NAMESPACE
     * names one: a workstation run puts it where its user works, where {@code explain} with the same kubeconfig looks.
     */
    private ControllerRuntime.Settings inContextNamespace(ControllerRuntime.Settings s, String namespace) {
        LeaseSettings e = s.election();
        if (e == null || leaseNamespaceGiven()) {
            return s;
        }
        return new ControllerRuntime.Settings(s.options(), new LeaseSettings(namespace, e.name(), e.identity(), e.leaseDuration(),
                e.renewDeadline(), e.retryPeriod()), s.metricsAddress(), s.metricsServing(), s.healthAddress(), s.shutdownTimeout());
    }

    /** HTTPS with the certificate of the files or a self-signed one, or plain HTTP; a file that cannot be used is a usage error. */
    private MetricsServing metricsServing(CommandLine cl, boolean served) {
        if ((tlsCertFile == null) != (tlsPrivateKeyFile == null)) {
            throw new CommandLine.ParameterException(cl, "--tls-cert-file and --tls-private-key-file go together: give both, or neither"
                    + " for a self-signed certificate");
        }
        if (!metricsSecure && tlsCertFile != null) {
            throw new CommandLine.ParameterException(cl, "--tls-cert-file and --tls-private-key-file are for HTTPS: they cannot go with"
                    + " --metrics-secure=false");
        }
        if (!metricsSecure || !served) {
            return MetricsServing.PLAIN;
        }
        try {
            return MetricsServing.secure(tlsCertFile != null ? ServingCertificate.read(tlsCertFile, tlsPrivateKeyFile)
                    : ServingCertificate.selfSigned(Instant.now()));
        } catch (ServingCertificate.Problem e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a self-signed certificate: " + e.getMessage(), e);
        }
    }

    private static String identity() {
        String pod = System.getenv("POD_NAME");
        if (pod != null && !pod.isEmpty()) {
            return pod;
        }
        try {
            return InetAddress.getLocalHost().getHostName() + "_" + ProcessHandle.current().pid();
        } catch (UnknownHostException e) {
            return "hpa-controller_" + ProcessHandle.current().pid();
        }
    }

    /** A number of bytes: "67108864", "64Mi", "1G". */
    static long bytes(CommandLine cl, String flag, String text) {
        long milli;
        try {
            milli = Quantities.milliValue(text.trim());
        } catch (IllegalArgumentException e) {
            milli = -1;
        }
        if (milli < 1000 || milli % 1000 != 0 || milli == Long.MAX_VALUE) {
            throw new CommandLine.ParameterException(cl, flag + " must be a whole number of bytes such as 67108864 or 64Mi, got '" + text + "'");
        }
        return milli / 1000;
    }

    /** ":8080", "0.0.0.0:8080", "127.0.0.1:0"; "0" or "" disables. */
    static InetSocketAddress address(CommandLine cl, String flag, String text) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty() || t.equals("0")) {
            return null;
        }
        int colon = t.lastIndexOf(':');
        String host = colon < 0 ? "" : t.substring(0, colon);
        String port = colon < 0 ? t : t.substring(colon + 1);
        try {
            int p = Integer.parseInt(port);
            if (p < 0 || p > 65535) {
                throw new NumberFormatException();
            }
            return host.isEmpty() ? new InetSocketAddress(p) : new InetSocketAddress(host, p);
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(cl, flag + " must be HOST:PORT or :PORT, got '" + text + "'");
        }
    }

    @Override
    public Integer call() throws Exception {
        ControllerRuntime.Settings settings = settings();
        KubeConnection connection;
        try {
            connection = KubeConnection.resolve(kubeconfig, context);
        } catch (KubeConnection.Problem e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        settings = inContextNamespace(settings, connection.namespace());
        if (sharding) {
            settings = settings.sharded();
        }
        LogFormat.apply(logFormat);
        KubernetesClient client = connection.connect(settings.options().apiTimeout(), 2 * workers, RequestRateLimiter.ofFlags(kubeApiQps, kubeApiBurst));
        CompletableFuture<Integer> lostLease = new CompletableFuture<>();
        ControllerRuntime runtime = new ControllerRuntime(client, settings, lostLease::complete);
        CountDownLatch stopping = new CountDownLatch(1);
        Thread shutdown = new Thread(() -> {
            stopping.countDown();
            runtime.close();
            client.close();
        }, "shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        // a lost lease stops everything, then run ends with its status (Main exits the process with it); not on the
        // election thread, which stopping waits for
        lostLease.thenRunAsync(() -> stopNow(shutdown), stop -> new Thread(stop, "lost-lease").start());
        LOG.info("hpa-controller connecting to {} ({}; namespaces: {}; reconciling the HPAs of: {}{})", connection.server(), connection.source(),
                settings.options().namespaces().isEmpty() ? "all" : settings.options().namespaces(),
                settings.options().apis().isEmpty() ? "no API" : settings.options().apis().stream().map(HpaApi::apiVersion).sorted().toList(),
                settings.options().shadow() ? "; shadowing the built-in controller on autoscaling/v2" : "");
        try {
            runtime.serve();
        } catch (IOException e) {
            stopNow(shutdown);
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        LeaseSettings election = settings.election();
        boolean persist = settings.options().persistHistory();
        ClusterAccess access = new ClusterAccess(client, ClusterAccess.needed(settings.options().apis(), settings.options().namespaces(),
                election == null ? null : election.namespace(), election == null ? null : election.name(), persist), settings.options().apis(), persist);
        ClusterAccess.Verdict verdict = ClusterAccess.untilAnswered(access::check,
                wait -> stopping.await(wait.toMillis(), TimeUnit.MILLISECONDS), LOG::warn, connection.server());
        if (verdict == null) {
            runtime.awaitStopped();
            return 0;
        }
        if (verdict.state() == ClusterAccess.State.MISSING_API) {
            stopNow(shutdown);
            throw new CommandLine.ParameterException(spec.commandLine(), verdict.message());
        }
        if (verdict.state() == ClusterAccess.State.REFUSED) {
            LOG.error("cannot run against {} ({}): {}", connection.server(), connection.source(), verdict.message());
            stopNow(shutdown);
            return 1;
        }
        verdict.warnings().forEach(w -> LOG.warn("{}", w));
        LOG.info("connected to Kubernetes {}", verdict.message());
        try {
            runtime.start();
        } catch (KubernetesClientException e) {
            // the API server went away between the check and the informers' first list
            LOG.error("cannot start against {}: {}", connection.server(), ClusterAccess.reason(e, connection.server()));
            stopNow(shutdown);
            return 1;
        }
        runtime.awaitStopped();
        return lostLease.getNow(0);
    }

    /** Stops what was started, unless the shutdown hook is already doing it. */
    private static void stopNow(Thread shutdown) {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdown);
        } catch (IllegalStateException alreadyShuttingDown) {
            return;
        }
        shutdown.run();
    }
}
