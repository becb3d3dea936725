package io.hpacontroller.cli;

import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RunCommandTest {

    /** Parses the flags the way {@code run} does, without connecting. */
    private static ControllerRuntime.Settings parse(String... args) {
        CommandLine cl = Main.commandLine();
        CommandLine.ParseResult result = cl.parseArgs(prepend("run", args));
        RunCommand run = (RunCommand) result.subcommand().commandSpec().userObject();
        return run.settings();
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @Test
    void defaultsAreKubeControllerManagersDefaults() {
        ControllerRuntime.Settings s = parse();
        assertThat(s.options().syncPeriod()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.options().workers()).isEqualTo(5);
        assertThat(s.options().namespaces()).isEmpty();
        assertThat(s.options().decisions().tolerance()).isEqualTo(0.1);
        assertThat(s.options().decisions().downscaleStabilization()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.options().decisions().cpuInitializationPeriod()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.options().decisions().initialReadinessDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.options().decisions().scaleToZeroEnabled()).isTrue();
        assertThat(s.election().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.election().renewDeadline()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.election().retryPeriod()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.election().name()).isEqualTo("hpa-controller");
        assertThat(s.metricsAddress().getPort()).isEqualTo(8080);
        assertThat(s.healthAddress().getPort()).isEqualTo(8081);
        assertThat(s.options().apis()).as("never a fight with the built-in controller by default").containsExactly(HpaApi.MIRROR);
        assertThat(s.options().shadow()).isFalse();
        assertThat(s.options().metricsLimits()).isEqualTo(new RestMetrics.Limits(64L * 1024 * 1024, 50_000, Duration.ofSeconds(10), 2));
        assertThat(parse("--metrics-max-response-bytes=1000000", "--metrics-max-items=10", "--metrics-request-timeout=3s",
                "--metrics-max-inflight-per-source=1").options().metricsLimits())
                .isEqualTo(new RestMetrics.Limits(1_000_000, 10, Duration.ofSeconds(3), 1));
    }

    @Test
    void hpaApisAndShadow() {
        assertThat(parse("--hpa-apis=autoscaling/v2,autoscaling.hpa-controller.io/v1").options().apis())
                .containsExactlyInAnyOrder(HpaApi.BUILTIN, HpaApi.MIRROR);
        assertThat(parse("--hpa-apis=autoscaling/v2").options().apis()).containsExactly(HpaApi.BUILTIN);
        ControllerRuntime.Settings shadowOnly = parse("--hpa-apis=", "--shadow");
        assertThat(shadowOnly.options().apis()).isEmpty();
        assertThat(shadowOnly.options().shadow()).isTrue();
        assertThat(parse("--shadow=true").options().apis()).containsExactly(HpaApi.MIRROR);
    }

    @Test
    void contradictoryOrUnknownHpaApisExitWithTwo() {
        assertThat(execute("--hpa-apis=autoscaling/v1")).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("--hpa-apis: unknown API 'autoscaling/v1' (known: autoscaling/v2, autoscaling.hpa-controller.io/v1)");
        });
        assertThat(execute("--hpa-apis=autoscaling/v2", "--shadow").err()).contains("--shadow computes autoscaling/v2 HPAs read-only");
        assertThat(execute("--hpa-apis=").err()).contains("nothing to do: --hpa-apis names no API and --shadow is off");
    }

    @Test
    void flagsInGoDurationFormAndRepeatedNamespaces() {
        ControllerRuntime.Settings s = parse("--horizontal-pod-autoscaler-sync-period=1m30s",
                "--horizontal-pod-autoscaler-tolerance", "0.05", "--horizontal-pod-autoscaler-downscale-stabilization=0",
                "--concurrent-horizontal-pod-autoscaler-syncs=20", "--namespace", "a", "--namespace=b,c",
                "--feature-gates=HPAScaleToZero=false", "--leader-elect=false", "--metrics-bind-address=127.0.0.1:9090",
                "--health-probe-bind-address=0");
        assertThat(s.options().syncPeriod()).isEqualTo(Duration.ofSeconds(90));
        assertThat(s.options().decisions().tolerance()).isEqualTo(0.05);
        assertThat(s.options().decisions().downscaleStabilization()).isZero();
        assertThat(s.options().workers()).isEqualTo(20);
        assertThat(s.options().namespaces()).containsExactly("a", "b", "c");
        assertThat(s.options().decisions().scaleToZeroEnabled()).isFalse();
        assertThat(s.election()).isNull();
        assertThat(s.metricsAddress().getHostString()).isEqualTo("127.0.0.1");
        assertThat(s.healthAddress()).isNull();
    }

    /** As kube-controller-manager (pflag): a repeated flag's last value wins; a list flag adds to its list. */
    @Test
    void aRepeatedFlagTakesItsLastValueAndAListFlagAccumulates() {
        CommandLine.ParseResult result = Main.commandLine().parseArgs("run", "--log-format=text", "--horizontal-pod-autoscaler-sync-period=15s",
                "--shadow=false", "--namespace=a", "--hpa-apis=autoscaling.hpa-controller.io/v1",
                "--log-format=json", "--horizontal-pod-autoscaler-sync-period=30s", "--shadow=true", "--namespace=b");
        RunCommand run = (RunCommand) result.subcommand().commandSpec().userObject();
        ControllerRuntime.Settings s = run.settings();

        assertThat(run.logFormat).isEqualTo("json");
        assertThat(s.options().syncPeriod()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.options().shadow()).isTrue();
        assertThat(s.options().namespaces()).containsExactly("a", "b");
        assertThat(parse("--hpa-apis=autoscaling.hpa-controller.io/v1", "--hpa-apis=autoscaling/v2").options().apis())
                .containsExactlyInAnyOrder(HpaApi.MIRROR, HpaApi.BUILTIN);
        assertThat(CommandRun.of("explain", "-o", "text", "-o", "json", "web").err())
                .as("the other commands still refuse a flag given twice").contains("should be specified only once");
    }

    private record Result(int exit, String err) {
    }

    private static Result execute(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        return new Result(cl.execute(prepend("run", args)), err.toString());
    }

    @Test
    void badValuesExitWithTwoAndSayWhatIsWrong() {
        assertThat(execute("--horizontal-pod-autoscaler-sync-period=fast")).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("--horizontal-pod-autoscaler-sync-period").contains("invalid duration \"fast\"").contains("Try 'hpa-controller run --help'");
        });
        assertThat(execute("--horizontal-pod-autoscaler-tolerance=-0.5").err()).contains("must be a non-negative number");
        assertThat(execute("--horizontal-pod-autoscaler-tolerance=abc").exit()).isEqualTo(2);
        assertThat(execute("--concurrent-horizontal-pod-autoscaler-syncs=0").err()).contains("at least 1");
        assertThat(execute("--horizontal-pod-autoscaler-sync-period=0s").err()).contains("must be positive");
        assertThat(execute("--feature-gates=HPAScaleToZero=maybe").err()).contains("invalid value of HPAScaleToZero=maybe");
        assertThat(execute("--feature-gates=NoSuchGate=true").err()).contains("unrecognized feature gate: NoSuchGate");
        assertThat(execute("--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=10s").err())
                .contains("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
        assertThat(execute("--metrics-bind-address=:http").err()).contains("--metrics-bind-address must be HOST:PORT");
        assertThat(execute("--log-format=xml").err()).contains("--log-format must be text or json");
        assertThat(execute("--metrics-max-response-bytes=lots").err())
                .contains("--metrics-max-response-bytes must be a whole number of bytes such as 67108864 or 64Mi, got 'lots'");
        assertThat(execute("--metrics-max-response-bytes=1.5").exit()).isEqualTo(2);
        assertThat(execute("--metrics-max-items=0").err()).contains("--metrics-max-items must be at least 1, got 0");
        assertThat(execute("--metrics-request-timeout=0s").err()).contains("--metrics-request-timeout must be positive, got 0s");
        assertThat(execute("--metrics-max-inflight-per-source=0").err()).contains("--metrics-max-inflight-per-source must be at least 1, got 0");
        assertThat(execute("--no-such-flag").exit()).isEqualTo(2);
    }

    /** Issue 40: the default cadence and the fresh cadence's window; an HPA's cadence control overrides the first. */
    @Test
    void syncCadenceFlagsDefaultToSpreadAndTwoSecondsAndRefuseBadValues() {
        assertThat(parse().options()).satisfies(o -> {
            assertThat(o.syncCadence()).isEqualTo(SyncCadence.SPREAD);
            assertThat(o.freshSpread()).isEqualTo(Duration.ofSeconds(2));
        });
        assertThat(parse("--sync-cadence=fresh", "--fresh-sync-spread=0s").options()).satisfies(o -> {
            assertThat(o.syncCadence()).isEqualTo(SyncCadence.FRESH);
            assertThat(o.freshSpread()).isZero();
        });
        assertThat(execute("--sync-cadence=Fresh")).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("--sync-cadence must be fresh or spread, got 'Fresh'").doesNotContain("Exception");
        });
        assertThat(execute("--fresh-sync-spread=-1s")).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("--fresh-sync-spread").contains("must not be negative");
        });
        assertThat(execute("--fresh-sync-spread=15s").err())
                .contains("--fresh-sync-spread must be at least 0 and shorter than the sync period (15s), got 15s");
        assertThat(execute("--horizontal-pod-autoscaler-sync-period=1s", "--fresh-sync-spread=2s").exit()).isEqualTo(2);
        assertThat(parse("--horizontal-pod-autoscaler-sync-period=1s").options().freshSpread()).as("the default window under a short period").isZero();
    }

    @Test
    void theMetricsPortServesHttpsByDefaultWithTheGivenOrASelfSignedCertificate() {
        ControllerRuntime.Settings secure = parse();
        assertThat(secure.metricsServing().secure()).isTrue();
        assertThat(secure.metricsServing().certificate().certificate().getSigAlgName()).as("self-signed, made at start").isEqualTo("SHA256withECDSA");
        assertThat(parse("--metrics-secure=false").metricsServing()).isEqualTo(MetricsServing.PLAIN);
        Path tls = Path.of("src/test/resources/tls");
        assertThat(parse("--tls-cert-file=" + tls.resolve("rsa.crt"), "--tls-private-key-file=" + tls.resolve("rsa-pkcs1.key"))
                .metricsServing().certificate().certificate().getSubjectX500Principal().getName()).isEqualTo("CN=hpa-controller-test");
    }

    @Test
    void aCertificateFlagAloneOrWithPlainHttpOrAnUnusableFileIsExitCode2() {
        Path tls = Path.of("src/test/resources/tls");
        assertThat(execute("--tls-cert-file=" + tls.resolve("rsa.crt"))).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("--tls-cert-file and --tls-private-key-file go together");
        });
        assertThat(execute("--metrics-secure=false", "--tls-cert-file=" + tls.resolve("rsa.crt"), "--tls-private-key-file=" + tls.resolve("rsa-pkcs1.key"))
                .err()).contains("they cannot go with --metrics-secure=false");
        assertThat(execute("--tls-cert-file=" + tls.resolve("rsa.crt"), "--tls-private-key-file=" + tls.resolve("ec-sec1.key"))).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("is not the key of the certificate in").doesNotContain("Exception");
        });
    }

    /** A typo in --context must not connect to the current context, which may be production. */
    @Test
    void anUnknownContextIsExitCode2NamingTheContextsThatExist(@TempDir Path dir) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("config"), KubeConnectionTest.KUBECONFIG);

        Result r = execute("--kubeconfig", kubeconfig.toString(), "--context", "stagign", "--metrics-bind-address=0",
                "--health-probe-bind-address=0");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: --context stagign: no such context in " + kubeconfig + " (contexts: prod, staging)\n");
    }

    @Test
    void aKubeconfigThatDoesNotParseIsExitCode2WithWhere(@TempDir Path dir) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("config"), KubeConnectionTest.KUBECONFIG.substring(0, 120));

        Result r = execute("--kubeconfig", kubeconfig.toString(), "--metrics-bind-address=0", "--health-probe-bind-address=0");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: " + kubeconfig + " is not a valid kubeconfig: ").containsPattern("\\(at line \\d+, column \\d+\\)\n");
    }

    @Test
    void aPortInUseIsExitCode2NamingTheFlagAndThePortTaken(@TempDir Path dir) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("config"), KubeConnectionTest.KUBECONFIG);
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Result r = execute("--kubeconfig", kubeconfig.toString(), "--metrics-bind-address=127.0.0.1:" + taken.getLocalPort(),
                    "--health-probe-bind-address=0");

            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).startsWith("error: cannot listen on --metrics-bind-address 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .contains("in use");
            Result health = execute("--kubeconfig", kubeconfig.toString(), "--metrics-bind-address=0",
                    "--health-probe-bind-address=:" + taken.getLocalPort());
            assertThat(health.exit()).isEqualTo(2);
            assertThat(health.err()).startsWith("error: cannot listen on --health-probe-bind-address :" + taken.getLocalPort() + ": ")
                    .contains("in use");
        }
    }

    /**
     * A lost lease ends {@code run} with status 1, which {@link Main} makes the process's (as kube-controller-manager
     * exits; the pod restarts as a standby). Run in this JVM, it returns the status and the JVM lives on.
     */
    @Test
    void aLostLeaseEndsRunWithStatus1WithoutEndingTheJvm(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            Path kubeconfig = cluster.writeKubeconfig(dir.resolve("config"), "shop");
            org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("POD_NAMESPACE") == null, "not in a pod");
            // no --leader-elect-resource-namespace: the Lease goes to the kubeconfig context's namespace, shop
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> execute("--kubeconfig", kubeconfig.toString(),
                    "--hpa-apis=autoscaling/v2", "--leader-elect-lease-duration=4s",
                    "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=300ms", "--metrics-bind-address=0", "--health-probe-bind-address=0"));
            await().atMost(Waits.STATE).until(() -> cluster.client().leases().inNamespace("shop").withName("hpa-controller").get() != null);

            cluster.fail("PUT", "^/apis/coordination\\.k8s\\.io/v1/namespaces/shop/leases/hpa-controller$", 500, Integer.MAX_VALUE); // no renewal

            assertThat(run.get(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).satisfies(r -> assertThat(r.exit()).as(r.err()).isEqualTo(1));
        }
    }

    /** Issue 38.8: no flag name, parameter or default value is broken across two lines of {@code run --help}. */
    @Test
    void theHelpBreaksNoFlagNameParameterOrDefaultAcrossLines() {
        CommandRun help = CommandRun.of("run", "--help");
        assertThat(help.exit()).isZero();
        CommandLine.Model.CommandSpec run = Main.commandLine().getSubcommands().get("run").getCommandSpec();
        for (CommandLine.Model.OptionSpec option : run.options()) {
            String name = option.longestName();
            String label = option.paramLabel() + (option.splitRegex().isEmpty() ? "" : "[," + option.paramLabel() + "...]");
            String shown = option.arity().max() == 0 ? name : option.arity().min() == 0 ? name + "[=" + label + "]" : name + "=" + label;
            assertThat(help.out()).as(name).containsPattern("[ ,] " + java.util.regex.Pattern.quote(shown) + "[ \n]");
            String value = option.defaultValueString();
            if (value != null && !value.isEmpty() && option.description().length > 0 && String.join(" ", option.description()).contains("${DEFAULT-VALUE}")) {
                assertThat(help.out()).as(name).contains("(default: " + value + ")");
            }
        }
        assertThat(help.out()).contains("--kube-api-qps=FLOAT").contains("--kube-api-burst=INT").contains("--leader-elect-resource-lock=TYPE");
    }

    /**
     * Issue 38.8: kube-controller-manager's client and lock flags, with upstream's meaning (no client-side limit by default, see
     * differences-from-upstream.md); a lock other than leases is a usage error.
     */
    @Test
    void kubeApiQpsBurstAndTheLeaseLockAreKubeControllerManagers() {
        CommandLine.ParseResult defaults = Main.commandLine().parseArgs("run");
        RunCommand run = (RunCommand) defaults.subcommand().commandSpec().userObject();
        run.settings();
        assertThat(run.kubeApiQps).isEqualTo(-1f);
        assertThat(run.kubeApiBurst).isEqualTo(30);
        assertThat(run.leaseLock).isEqualTo("leases");
        assertThat(parse("--kube-api-qps=50", "--kube-api-burst=100", "--leader-elect-resource-lock=leases")).isNotNull();

        Result lock = execute("--leader-elect-resource-lock=endpointsleases");
        assertThat(lock.exit()).isEqualTo(2);
        assertThat(lock.err()).startsWith("error: --leader-elect-resource-lock must be leases, got 'endpointsleases' (upstream's current"
                + " releases accept only leases)\n");
        assertThat(parse("--kube-api-qps=0", "--kube-api-burst=0")).isNotNull();
        Result qps = execute("--kube-api-qps=NaN");
        assertThat(qps.exit()).isEqualTo(2);
        assertThat(qps.err()).startsWith("error: --kube-api-qps must be a number, got NaN\n");
        Result burst = execute("--kube-api-burst=-1");
        assertThat(burst.exit()).isEqualTo(2);
        assertThat(burst.err()).startsWith("error: --kube-api-burst must not be negative, got -1\n");
    }

    @Test
    void everyFlagCanComeFromTheEnvironment() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run", "--help"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(Map.of(
                "HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD", "42s",
                "HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_TOLERANCE", "0.07",
                "HPA_CONTROLLER_CONCURRENT_HORIZONTAL_POD_AUTOSCALER_SYNCS", "9",
                "HPA_CONTROLLER_LEADER_ELECT_RESOURCE_NAME", "my-lease",
                "HPA_CONTROLLER_LOG_FORMAT", "json"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(Waits.STATE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(out.replaceAll("\\s+", " "))
                .contains("(default: 42s)").contains("(default: 0.07)").contains("(default: 9)")
                .contains("Name of the Lease (default: my-lease)").contains("(default: json)");
    }
}
