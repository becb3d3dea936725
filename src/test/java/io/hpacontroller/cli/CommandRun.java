package io.hpacontroller.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the command line as tests make it: exit status and what went to stdout and stderr. */
public record CommandRun(int exit, String out, String err) {

    public static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
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
