package io.hpacontroller.cli;

import io.hpacontroller.ops.ControllerRuntime;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EnvDefaultsTest {

    /** {@code run} with these flags and this environment (instead of the process's). */
    private static CommandLine run(Map<String, String> environment, StringWriter err) {
        CommandLine cl = Main.commandLine();
        cl.getSubcommands().get("run").setDefaultValueProvider(new EnvDefaults(environment::get));
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        return cl;
    }

    private static String[] withRun(String... flags) {
        String[] all = new String[flags.length + 1];
        all[0] = "run";
        System.arraycopy(flags, 0, all, 1, flags.length);
        return all;
    }

    @Test
    void everyFlagOfRunHasTheVariableOfItsName() {
        CommandLine run = Main.commandLine().getSubcommands().get("run");
        assertThat(run.getDefaultValueProvider()).as("from @Command, so a new flag needs nothing more").isInstanceOf(EnvDefaults.class);
        List<OptionSpec> flags = run.getCommandSpec().options().stream().filter(o -> !o.usageHelp() && !o.versionHelp()).toList();
        assertThat(flags).hasSizeGreaterThanOrEqualTo(28);
        for (OptionSpec flag : flags) {
            String variable = "HPA_CONTROLLER_" + flag.longestName().substring(2).toUpperCase().replace('-', '_');
            assertThat(new EnvDefaults(Map.of(variable, "x")::get).defaultValue(flag)).as(variable).isEqualTo("x");
        }
        assertThat(EnvDefaults.variableOf(run.getCommandSpec().findOption("--horizontal-pod-autoscaler-sync-period")))
                .isEqualTo("HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD");
        assertThat(EnvDefaults.variableOf(run.getCommandSpec().findOption("--help"))).isNull();
    }

    @Test
    void aWindowGivenThroughItsVariableIsCheckedAsOneGivenAsAFlag() {
        StringWriter err = new StringWriter();
        CommandLine cl = run(Map.of("HPA_CONTROLLER_FRESH_SYNC_SPREAD", "5s"), err);
        RunCommand given = (RunCommand) cl.parseArgs(withRun("--horizontal-pod-autoscaler-sync-period=1s")).subcommand().commandSpec().userObject();
        org.assertj.core.api.Assertions.assertThatThrownBy(given::settings).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--fresh-sync-spread");

        RunCommand byDefault = (RunCommand) run(Map.of(), new StringWriter()).parseArgs(withRun("--horizontal-pod-autoscaler-sync-period=1s"))
                .subcommand().commandSpec().userObject();
        assertThat(byDefault.settings().options().freshSpread()).as("the flag's own default under a short period: no window").isZero();
    }

    @Test
    void theEnvironmentSetsAFlagAndTheCommandLineWins() {
        Map<String, String> env = Map.of("HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD", "42s",
                "HPA_CONTROLLER_NAMESPACE", "a,b", "HPA_CONTROLLER_SHADOW", "true", "HPA_CONTROLLER_HPA_APIS", "");
        CommandLine cl = run(env, new StringWriter());
        RunCommand given = (RunCommand) cl.parseArgs(withRun()).subcommand().commandSpec().userObject();
        ControllerRuntime.Settings s = given.settings();
        assertThat(s.options().syncPeriod()).isEqualTo(Duration.ofSeconds(42));
        assertThat(s.options().namespaces()).containsExactly("a", "b");
        assertThat(given.shadow).isTrue();

        cl = run(env, new StringWriter());
        RunCommand overridden = (RunCommand) cl.parseArgs(withRun("--horizontal-pod-autoscaler-sync-period=7s")).subcommand().commandSpec().userObject();
        assertThat(overridden.settings().options().syncPeriod()).isEqualTo(Duration.ofSeconds(7));
        cl = run(Map.of(), new StringWriter());
        RunCommand unset = (RunCommand) cl.parseArgs(withRun()).subcommand().commandSpec().userObject();
        assertThat(unset.settings().options().syncPeriod()).as("the flag's own default").isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void aBadValueFromTheEnvironmentIsReportedUnderTheVariablesName() {
        StringWriter err = new StringWriter();
        int exit = run(Map.of("HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD", "soon"), err).execute(withRun());
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString().lines().toList()).hasSize(2).first().asString()
                .isEqualTo("error: environment variable HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD: Invalid value for option"
                        + " '--horizontal-pod-autoscaler-sync-period': invalid duration \"soon\" (use a number and a unit: ns, us, ms, s, m, h;"
                        + " e.g. 15s, 5m, 1m30s)");

        err = new StringWriter();
        exit = run(Map.of("HPA_CONTROLLER_CONCURRENT_HORIZONTAL_POD_AUTOSCALER_SYNCS", "0"), err).execute(withRun());
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).as("a value converted but refused by the command's checks").startsWith(
                "error: environment variable HPA_CONTROLLER_CONCURRENT_HORIZONTAL_POD_AUTOSCALER_SYNCS:"
                        + " --concurrent-horizontal-pod-autoscaler-syncs must be at least 1, got 0\n");
    }

    @Test
    void aBadValueOnTheCommandLineIsReportedUnderTheFlag() {
        Map<String, String> env = Map.of("HPA_CONTROLLER_CONCURRENT_HORIZONTAL_POD_AUTOSCALER_SYNCS", "3",
                "HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD", "15s");
        StringWriter err = new StringWriter();
        assertThat(run(env, err).execute(withRun("--concurrent-horizontal-pod-autoscaler-syncs=0"))).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: --concurrent-horizontal-pod-autoscaler-syncs must be at least 1, got 0\n");

        err = new StringWriter();
        assertThat(run(env, err).execute(withRun("--horizontal-pod-autoscaler-sync-period=soon"))).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: Invalid value for option '--horizontal-pod-autoscaler-sync-period'");
    }
}
