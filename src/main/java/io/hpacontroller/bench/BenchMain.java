package io.hpacontroller.bench;

import io.hpacontroller.cli.Main;
import picocli.CommandLine;

/**
 * Entry point of {@code hpa-controller-bench.jar}: the controller's commands plus {@code bench}. That jar holds only
 * this package and the API stub's libraries (Vert.x, Netty, HdrHistogram), and names the controller's jar beside it
 * on its class path, so that neither the controller's jar nor its image carries the stub; {@link RunProcess} runs
 * that jar alone.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        Main.launch(commandLine(), args);
    }

    /** The command line with every command of the controller's jar and {@code bench}, as tests run it. */
    public static CommandLine commandLine() {
        return Main.commandLine(new BenchCommand());
    }
}
