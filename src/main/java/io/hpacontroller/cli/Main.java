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
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with every command, as tests run it. Usage errors print one line and exit 2. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("error: " + ex.getMessage());
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
            c.getErr().flush();
            return 2;
        });
        return cl;
    }

    /** Reads the version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"hpa-controller " + (v == null ? "(development build)" : v)};
        }
    }
}
