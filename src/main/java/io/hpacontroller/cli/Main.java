package io.hpacontroller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point: {@code java -jar hpa-controller.jar <command>}. */
@Command(name = "hpa-controller",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "A drop-in replacement for the Kubernetes Horizontal Pod Autoscaler controller.",
        subcommands = {RunCommand.class, ExplainCommand.class, SimulateCommand.class, ConformanceCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: " + commandNames(spec.commandLine()));
    }

    public static void main(String[] args) {
        CommonPool.atLeastTwo(System.getProperties(), Runtime.getRuntime().availableProcessors());
        TlsCipherSuites.preferChaCha20(System.getProperties());
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line with every command, as tests run it. Usage errors print one line and exit 2 (naming the
     * environment variable whose value is at fault, {@link EnvDefaults}).
     * {@code run} takes a repeated flag as kube-controller-manager does: the last value wins
     * ({@code --log-format=text ... --log-format=json} logs JSON), and a list flag ({@code --namespace},
     * {@code --hpa-apis}) adds to its list; the chart's extraArgs and kustomize overlays override a flag by
     * appending it. The other commands still refuse a flag given twice (there it is a typo).
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.getSubcommands().get("run").setOverwrittenOptionsAllowed(true);
        return usageErrorsExitTwo(cl);
    }

    /** A usage error (a mistake of the command line) prints one line naming it, then where help is, and exits 2. */
    static CommandLine usageErrorsExitTwo(CommandLine cl) {
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("error: " + (isUnknownCommand(ex) ? unknownCommand((CommandLine.UnmatchedArgumentException) ex) : EnvDefaults.blame(ex)));
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
            c.getErr().flush();
            return 2;
        });
        return cl;
    }

    /** A word where a command was expected, e.g. {@code hpa-controller simualte}. */
    private static boolean isUnknownCommand(CommandLine.ParameterException ex) {
        return ex instanceof CommandLine.UnmatchedArgumentException u && !ex.getCommandLine().getSubcommands().isEmpty()
                && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-");
    }

    private static String unknownCommand(CommandLine.UnmatchedArgumentException ex) {
        return "unknown command '" + ex.getUnmatched().get(0) + "'; " + commandNames(ex.getCommandLine());
    }

    static String commandNames(CommandLine cl) {
        return "the commands are " + String.join(", ", cl.getSubcommands().keySet());
    }

    /** Reads the version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"hpa-controller " + ReleaseVersion.ofJar().orElse("(development build)")};
        }
    }
}
