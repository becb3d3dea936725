package io.hpacontroller.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the command line as tests make it: exit status and what went to stdout and stderr. */
public record CommandRun(int exit, String out, String err) {

    public static CommandRun of(String... args) {
        return of(Main.commandLine(), args);
    }

    /** One run of another command line (the kubectl plugin's). */
    static CommandRun of(CommandLine cl, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new CommandRun(exit, out.toString(), err.toString());
    }

    String lastLine() {
        String[] lines = out.strip().split("\n");
        return lines[lines.length - 1];
    }
}
