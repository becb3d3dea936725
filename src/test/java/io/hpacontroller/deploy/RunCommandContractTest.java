package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.hpacontroller.cli.FeatureGates;
import io.hpacontroller.cli.Main;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arguments the manifests give the container are accepted by the real {@code run} command
 * (picocli parses them with the command's own converters), and the chart passes every flag of it.
 */
class RunCommandContractTest {

    /** Flags the chart leaves out on purpose: a pod talks to its own cluster through its ServiceAccount. */
    private static final Set<String> NOT_FOR_A_POD = Set.of("--kubeconfig", "--context");
    /** Passed only when set: the default (all namespaces, a self-signed certificate) is the flag's absence. */
    private static final Set<String> ONLY_WHEN_SET = Set.of("--namespace", "--tls-cert-file", "--tls-private-key-file");

    @Test
    void deployArgsParseIntoTheDefaultsOfTheRunCommand() {
        ParseResult run = parse(args(Manifests.deployDir().single(Deployment.class)));

        assertThat(run.unmatched()).isEmpty();
        assertThat(run.<Duration>matchedOptionValue("--horizontal-pod-autoscaler-sync-period", null)).isEqualTo(Duration.ofSeconds(15));
        assertThat(run.<Double>matchedOptionValue("--horizontal-pod-autoscaler-tolerance", null)).isEqualTo(0.1);
        assertThat(run.<Duration>matchedOptionValue("--horizontal-pod-autoscaler-downscale-stabilization", null)).isEqualTo(Duration.ofMinutes(5));
        assertThat(run.<Duration>matchedOptionValue("--horizontal-pod-autoscaler-cpu-initialization-period", null)).isEqualTo(Duration.ofMinutes(5));
        assertThat(run.<Duration>matchedOptionValue("--horizontal-pod-autoscaler-initial-readiness-delay", null)).isEqualTo(Duration.ofSeconds(30));
        assertThat(run.<Integer>matchedOptionValue("--concurrent-horizontal-pod-autoscaler-syncs", null)).isEqualTo(5);
        assertThat(run.<String>matchedOptionValue("--metrics-max-response-bytes", null)).isEqualTo("64Mi");
        assertThat(run.<Integer>matchedOptionValue("--metrics-max-items", null)).isEqualTo(50_000);
        assertThat(run.<Duration>matchedOptionValue("--metrics-request-timeout", null)).isEqualTo(Duration.ofSeconds(10));
        assertThat(run.<Integer>matchedOptionValue("--metrics-max-inflight-per-source", null)).isEqualTo(2);
        assertThat(run.<FeatureGates>matchedOptionValue("--feature-gates", null)).isEqualTo(FeatureGates.DEFAULTS);
        assertThat(run.<Boolean>matchedOptionValue("--leader-elect", null)).isTrue();
        assertThat(run.<Duration>matchedOptionValue("--leader-elect-lease-duration", null)).isEqualTo(Duration.ofSeconds(15));
        assertThat(run.<Duration>matchedOptionValue("--leader-elect-renew-deadline", null)).isEqualTo(Duration.ofSeconds(10));
        assertThat(run.<Duration>matchedOptionValue("--leader-elect-retry-period", null)).isEqualTo(Duration.ofSeconds(2));
        assertThat(run.<String>matchedOptionValue("--leader-elect-resource-name", null)).isEqualTo("hpa-controller");
        assertThat(run.<String>matchedOptionValue("--leader-elect-resource-namespace", null)).isEqualTo(HelmChart.NAMESPACE);
        assertThat(run.<String>matchedOptionValue("--metrics-bind-address", null)).isEqualTo(":8080");
        assertThat(run.<Boolean>matchedOptionValue("--metrics-secure", null)).isTrue();
        assertThat(run.<String>matchedOptionValue("--health-probe-bind-address", null)).isEqualTo(":8081");
        assertThat(run.<String>matchedOptionValue("--log-format", null)).isEqualTo("text");
    }

    @Test
    void chartPassesEveryFlagOfTheRunCommand() {
        Set<String> runFlags = runCommand().getCommandSpec().options().stream()
                .filter(o -> !o.usageHelp() && !o.versionHelp())
                .map(OptionSpec::longestName)
                .filter(name -> !NOT_FOR_A_POD.contains(name) && !ONLY_WHEN_SET.contains(name))
                .collect(Collectors.toSet());
        Set<String> passed = args(HelmChart.renderDefaults().single(Deployment.class)).stream()
                .filter(a -> a.startsWith("--")).map(a -> a.split("=", 2)[0]).collect(Collectors.toSet());

        assertThat(passed).containsExactlyInAnyOrderElementsOf(runFlags);
    }

    @Test
    void overriddenChartArgsParseToo() {
        ParseResult run = parse(args(HelmChart.render("""
                replicaCount: 1
                watchNamespaces: [shop, payments]
                leaderElection:
                  enabled: false
                featureGates:
                  HPAScaleToZero: false
                logFormat: json
                """).single(Deployment.class)));

        assertThat(run.<List<String>>matchedOptionValue("--namespace", null)).containsExactly("shop", "payments");
        assertThat(run.<Boolean>matchedOptionValue("--leader-elect", null)).isFalse();
        assertThat(run.<FeatureGates>matchedOptionValue("--feature-gates", null)).isEqualTo(new FeatureGates(false));
        assertThat(run.<String>matchedOptionValue("--log-format", null)).isEqualTo("json");
    }

    /** {@code --set 'extraArgs={--log-format=json}'}: the flag is appended after the chart's, and run takes the last value. */
    @Test
    void extraArgsOverrideTheChartsFlagsTheLastValueWins() {
        List<String> args = args(HelmChart.render("""
                watchNamespaces: [shop]
                extraArgs: [--log-format=json, --horizontal-pod-autoscaler-sync-period=30s, --namespace=payments]
                """).single(Deployment.class));
        ParseResult run = parse(args);

        assertThat(args).containsSubsequence("--log-format=text", "--log-format=json");
        assertThat(run.unmatched()).isEmpty();
        assertThat(run.<String>matchedOptionValue("--log-format", null)).isEqualTo("json");
        assertThat(run.<Duration>matchedOptionValue("--horizontal-pod-autoscaler-sync-period", null)).isEqualTo(Duration.ofSeconds(30));
        assertThat(run.<List<String>>matchedOptionValue("--namespace", null)).as("a list flag accumulates").containsExactly("shop", "payments");
    }

    private static List<String> args(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    }

    /** Parses like the image does: ENTRYPOINT java -jar, then the container's args (starting with "run"). */
    static ParseResult parse(List<String> args) {
        ParseResult top = Main.commandLine().parseArgs(args.toArray(String[]::new));
        assertThat(top.subcommand()).as("a subcommand").isNotNull();
        assertThat(top.subcommand().commandSpec().name()).isEqualTo("run");
        return top.subcommand();
    }

    private static CommandLine runCommand() {
        return Main.commandLine().getSubcommands().get("run");
    }
}
