package io.hpacontroller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The kubectl plugin {@code kubectl-hpa} ({@code kubectl hpa VERB}), which the launcher {@code target/kubectl-hpa} runs
 * from the jar beside it: {@code describe} ({@link DescribeCommand}), {@code why} ({@link ExplainCommand}, the same
 * command as {@code explain}) and {@code simulate} ({@link SimulateCommand}). Usage errors exit 2 with one line, as
 * {@link Main}'s commands.
 */
@Command(name = "kubectl hpa",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        synopsisSubcommandLabel = "VERB",
        description = "kubectl's verbs for HorizontalPodAutoscalers of both APIs (autoscaling/v2 and the mirror API"
                + " autoscaling.hpa-controller.io), from hpa-controller. NAMESPACE/NAME may also be written -n NAMESPACE NAME,"
                + " or NAME in the kubeconfig context's namespace.",
        commandListHeading = "%nVerbs:%n",
        footer = {"", "Examples:",
                "  kubectl hpa describe default/web    as kubectl describe hpa, mirror HPAs too",
                "  kubectl hpa why -n default web      what the autoscaler decides now, and why",
                "  kubectl hpa simulate scenario.yaml  a load trace through the decision code"})
public final class KubectlHpa implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a verb is required: " + Main.commandNames(spec.commandLine()));
    }

    public static void main(String[] args) {
        TlsCipherSuites.preferChaCha20(System.getProperties());
        System.exit(commandLine().execute(args));
    }

    /** The plugin's command line, as tests run it. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new KubectlHpa());
        cl.addSubcommand("describe", new DescribeCommand());
        cl.addSubcommand("why", new CommandLine(new ExplainCommand()).setCommandName("why"));
        cl.addSubcommand("simulate", new SimulateCommand());
        cl.addSubcommand("help", new CommandLine.HelpCommand());
        return Main.usageErrorsExitTwo(cl);
    }
}
