package io.hpacontroller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point: {@code java -jar hpa-controller.jar <command>}. */
@Command(name = "hpa-controller",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "A drop-in replacement for the Kubernetes Horizontal Pod Autoscaler controller.",
        subcommands = {RunCommand.class, ExplainCommand.class, SimulateCommand.class, ConformanceCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: " + commandNames(spec.commandLine()));
    }

    /** The jar of the {@code bench} command (io.hpacontroller.bench.BenchMain), built beside this one. */
    private static final String BENCH_JAR = "hpa-controller-bench.jar";

    public static void main(String[] args) {
        launch(commandLine(), args);
    }

    /** Runs a command line in this JVM, as {@code main} does: the JVM's settings first, then the command; exits with its code. */
    public static void launch(CommandLine cl, String[] args) {
        CommonPool.atLeastTwo(System.getProperties(), Runtime.getRuntime().availableProcessors());
        TlsCipherSuites.preferChaCha20(System.getProperties());
        System.exit(cl.execute(args));
    }

    /**
     * The command line with every command, as tests run it. Usage errors print one line and exit 2 (naming the
     * environment variable whose value is at fault, {@link EnvDefaults}).
     * {@code run} takes a repeated flag as kube-controller-manager does: the last value wins
     * ({@code --log-format=text ... --log-format=json} logs JSON), and a list flag ({@code --namespace},
     * {@code --hpa-apis}) adds to its list; the chart's extraArgs and kustomize overlays override a flag by
     * appending it. The other commands still refuse a flag given twice (there it is a typo).
     *
     * @param more commands beyond this jar's (the bench jar adds {@code bench})
     */
    public static CommandLine commandLine(Object... more) {
        CommandLine cl = new CommandLine(new Main());
        for (Object command : more) {
            cl.addSubcommand(command);
        }
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
        String word = ex.getUnmatched().get(0);
        if (word.equals("bench")) {
            return "'bench' moved to a jar of its own, built beside this one: java -jar target/" + BENCH_JAR + " bench ...";
        }
        return "unknown command '" + word + "'; " + commandNames(ex.getCommandLine());
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
