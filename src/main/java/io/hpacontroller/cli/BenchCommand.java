package io.hpacontroller.cli;

import io.hpacontroller.bench.Bench;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code bench}: the live controller against N HPAs and N x M pods in an in-process API stub. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Runs the real controller (informers, queue, workers, reconciler, API clients) against an API stub",
                "holding N HPAs, N Deployments and N x M pods with metrics, and prints its figures as 'key: value' lines.",
                "Give the JVM the heap you want to check, e.g. java -Xmx512m -jar target/hpa-controller.jar bench ..."})
public final class BenchCommand implements Callable<Integer> {

    @Option(names = "--hpas", paramLabel = "N", defaultValue = "1000", description = "number of HPAs (default: ${DEFAULT-VALUE})")
    int hpas;

    @Option(names = "--pods-per-hpa", paramLabel = "M", defaultValue = "10", description = "pods per HPA target (default: ${DEFAULT-VALUE})")
    int podsPerHpa;

    @Option(names = "--duration", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "60s",
            description = "how long to measure after the warm-up (default: ${DEFAULT-VALUE})")
    Duration duration;

    @Option(names = "--workers", paramLabel = "INT", defaultValue = "5",
            description = "--concurrent-horizontal-pod-autoscaler-syncs (default: ${DEFAULT-VALUE})")
    int workers;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (hpas < 1 || podsPerHpa < 1 || workers < 1) {
            throw new CommandLine.ParameterException(cl, "--hpas, --pods-per-hpa and --workers must be at least 1");
        }
        if (duration.isZero()) {
            throw new CommandLine.ParameterException(cl, "--duration must be positive");
        }
        PrintWriter out = cl.getOut();
        new Bench(hpas, podsPerHpa, duration, workers, out).run().print(out);
        return 0;
    }
}
