package io.hpacontroller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every flag of a command from the environment: {@code HPA_CONTROLLER_} + the flag's name in upper case with
 * {@code -} as {@code _} ({@code --horizontal-pod-autoscaler-sync-period} from
 * {@code HPA_CONTROLLER_HORIZONTAL_POD_AUTOSCALER_SYNC_PERIOD}), derived from the option's name, so a new flag
 * needs nothing more; a variable that is not set leaves the flag's own default. A bad value from a variable is
 * reported under the variable's name ({@link #blame}).
 */
public final class EnvDefaults implements CommandLine.IDefaultValueProvider {

    static final String PREFIX = "HPA_CONTROLLER_";
    /** The flag a message of {@code RunCommand.settings()} starts with: "--kube-api-burst must not be negative". */
    private static final Pattern LEADING_FLAG = Pattern.compile("^(--[a-z0-9-]+)");

    private final UnaryOperator<String> environment;

    /** From the process's environment (as {@code @Command(defaultValueProvider = ...)} creates it). */
    public EnvDefaults() {
        this(System::getenv);
    }

    EnvDefaults(UnaryOperator<String> environment) {
        this.environment = environment;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        String variable = variableOf(arg);
        return variable == null ? null : environment.apply(variable);
    }

    /** The variable of an option: null for a positional parameter, --help and --version. */
    static String variableOf(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || option.usageHelp() || option.versionHelp() || !option.longestName().startsWith("--")) {
            return null;
        }
        return PREFIX + option.longestName().substring(2).toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }

    /**
     * The message of a usage error, naming the environment variable when its value is the one at fault: the
     * flag the error is about was not on the command line and the variable is set (and, for a value that failed
     * to convert, is that value).
     */
    static String blame(CommandLine.ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        if (!(cl.getDefaultValueProvider() instanceof EnvDefaults env)) {
            return ex.getMessage();
        }
        OptionSpec option = ex.getArgSpec() instanceof OptionSpec o ? o : leadingOption(cl, ex.getMessage());
        String variable = option == null ? null : variableOf(option);
        String value = variable == null ? null : env.environment.apply(variable);
        if (value == null || (ex.getValue() != null && !Objects.equals(ex.getValue(), value))) {
            return ex.getMessage();
        }
        CommandLine.ParseResult given = cl.getParseResult();
        if (given != null && given.hasMatchedOption(option)) {
            return ex.getMessage();
        }
        return "environment variable " + variable + ": " + ex.getMessage();
    }

    /** Whether an option's value was given: on the command line, or through its variable (else it is the flag's own default). */
    static boolean given(CommandLine cl, String name) {
        OptionSpec option = cl.getCommandSpec().findOption(name);
        if (cl.getParseResult() != null && cl.getParseResult().hasMatchedOption(option)) {
            return true;
        }
        return cl.getDefaultValueProvider() instanceof EnvDefaults env && env.environment.apply(variableOf(option)) != null;
    }

    private static OptionSpec leadingOption(CommandLine cl, String message) {
        Matcher m = LEADING_FLAG.matcher(message == null ? "" : message);
        return m.find() ? cl.getCommandSpec().findOption(m.group(1)) : null;
    }
}
