package io.hpacontroller.bench;

import io.hpacontroller.cli.DurationConverter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code bench} ({@link BenchMain}): the live controller against N HPAs and N x M pods in an API stub. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Runs the real controller against an API stub holding N HPAs, N Deployments and N x M pods with metrics,",
                "and prints its figures as 'key: value' lines: first the run command in a JVM of its own with the image's",
                "JVM options, from process start to steady state (memory, CPU, start-up, metrics queries per second), then",
                "the capacity of the controller in this JVM (give it the heap you want to check: java -Xmx512m -jar ...),",
                "and its paced throughput: how fast it works off every HPA due at once at --sync-period."})
public final class BenchCommand implements Callable<Integer> {

    @Option(names = "--hpas", paramLabel = "N", defaultValue = "1000", description = "number of HPAs (default: ${DEFAULT-VALUE})")
    int hpas;

    @Option(names = "--pods-per-hpa", paramLabel = "M", defaultValue = "10", description = "pods per HPA target (default: ${DEFAULT-VALUE})")
    int podsPerHpa;

    @Option(names = "--duration", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "60s",
            description = "how long to measure the capacity after the warm-up; 0s skips it and the paced throughput (default: ${DEFAULT-VALUE})")
    Duration duration;

    @Option(names = "--run-for", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "90s",
            description = "how long the controller process runs from its start (start-up, then steady state); 0s skips it (default: ${DEFAULT-VALUE})")
    Duration runFor;

    @Option(names = "--sync-period", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "15s",
            description = "the controller process's --horizontal-pod-autoscaler-sync-period, and the paced throughput's period (default: ${DEFAULT-VALUE})")
    Duration syncPeriod;

    @Option(names = "--jvm-options", paramLabel = "OPTIONS",
            description = "the controller process's JVM options, space-separated (default: the image's, ${DEFAULT-VALUE})")
    String jvmOptions = String.join(" ", Bench.IMAGE_JVM_OPTIONS);

    @Option(names = "--memory-limit", paramLabel = "SIZE", defaultValue = "256m",
            description = "the controller process's memory limit as a container's JVM sees it (-XX:MaxRAM, unless --jvm-options sets it;"
                    + " the chart's default limit, ${DEFAULT-VALUE}): the heap and RSS figures of a pod, not of this machine's RAM")
    String memoryLimit;

    @Option(names = "--workers", paramLabel = "INT", defaultValue = "5",
            description = "--concurrent-horizontal-pod-autoscaler-syncs (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "1",
            description = {"controller processes: 1 runs one electing a leader; N >= 2 run N with --sharding against one stub, each its own",
                    "identity, and print each replica's share (owned HPAs, reconciles/s, CPU per reconcile) and the totals; the in-process",
                    "capacity is then not measured (default: ${DEFAULT-VALUE})"})
    int replicas;

    @Option(names = "--baseline", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true", defaultValue = "false",
            description = "with --replicas N >= 2: first run one controller process against a stub of its own (its figures as baseline.*),"
                    + " then compare each replica's CPU per reconcile with that one's (default: ${DEFAULT-VALUE})")
    boolean baseline;

    @Option(names = "--baseline-sync-period", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "with --baseline: the one process's sync period (default: --sync-period); N times --sync-period runs it at a"
                    + " replica's reconciles per second, which parts a replica's own cost from the cost of syncing fewer HPAs a second")
    Duration baselineSyncPeriod;

    @Option(names = "--pin-cores", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true", defaultValue = "false",
            description = "with --replicas N >= 2: each controller process on a core of its own (taskset -c; the baseline on one too), as a"
                    + " pod with a CPU limit of 1 on a node of its own; needs N cores (default: ${DEFAULT-VALUE})")
    boolean pinCores;

    @Option(names = "--others-as-leases", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true", defaultValue = "false",
            description = "with --replicas N >= 2: run replica 1 only; the stub keeps the other N-1 members' Leases live, as if their"
                    + " processes ran on other nodes, so replica 1 syncs its share with the machine to itself (the others' HPAs are not"
                    + " synced) (default: ${DEFAULT-VALUE})")
    boolean othersAsLeases;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (hpas < 1 || podsPerHpa < 1 || workers < 1) {
            throw new CommandLine.ParameterException(cl, "--hpas, --pods-per-hpa and --workers must be at least 1");
        }
        if (replicas < 1) {
            throw new CommandLine.ParameterException(cl, "--replicas must be at least 1, got " + replicas);
        }
        if (replicas == 1 && baseline) {
            throw new CommandLine.ParameterException(cl, "--baseline compares N replicas with one: it needs --replicas 2 or more");
        }
        if (baselineSyncPeriod != null && (!baseline || baselineSyncPeriod.isZero() || baselineSyncPeriod.isNegative())) {
            throw new CommandLine.ParameterException(cl, "--baseline-sync-period sets the baseline's period: it needs --baseline and a positive duration");
        }
        if (othersAsLeases && replicas < 2) {
            throw new CommandLine.ParameterException(cl, "--others-as-leases runs replica 1 of --replicas N beside N-1 Leases: it needs --replicas 2 or more");
        }
        int cores = Runtime.getRuntime().availableProcessors();
        if (pinCores && (replicas < 2 || replicas > cores)) {
            throw new CommandLine.ParameterException(cl, "--pin-cores gives each of --replicas N >= 2 processes a core of its own: N must be 2 to "
                    + cores + " here, got " + replicas);
        }
        if (replicas > 1 && runFor.isZero()) {
            throw new CommandLine.ParameterException(cl, "--replicas " + replicas + " measures the controller processes: --run-for must be positive");
        }
        if (replicas > 1 && cl.getParseResult().hasMatchedOption("--duration") && !duration.isZero()) {
            throw new CommandLine.ParameterException(cl, "--duration measures one controller in this JVM: it cannot go with --replicas " + replicas
                    + " (leave it out)");
        }
        if (duration.isZero() && runFor.isZero()) {
            throw new CommandLine.ParameterException(cl, "--duration and --run-for are both 0s: nothing to measure");
        }
        if (syncPeriod.isZero()) {
            throw new CommandLine.ParameterException(cl, "--sync-period must be positive");
        }
        if (!runFor.isZero() && !Bench.canMeasureProcesses()) {
            throw new CommandLine.ParameterException(cl, "--run-for needs Linux's /proc to measure the controller process; pass --run-for 0s");
        }
        if (!memoryLimit.matches("\\d+[kKmMgG]?")) {
            throw new CommandLine.ParameterException(cl, "--memory-limit: expected a size such as 256m, got '" + memoryLimit + "'");
        }
        List<String> options = new ArrayList<>();
        if (!jvmOptions.contains("-XX:MaxRAM=")) {
            options.add("-XX:MaxRAM=" + memoryLimit);
        }
        if (!jvmOptions.isBlank()) {
            options.addAll(List.of(jvmOptions.trim().split("\\s+")));
        }
        PrintWriter out = cl.getOut();
        new Bench(hpas, podsPerHpa, duration, workers, syncPeriod, runFor, options, out).withReplicas(replicas, baseline)
                .baselineSyncPeriod(baselineSyncPeriod).pinCores(pinCores)
                .othersAsLeases(othersAsLeases).run().print(out);
        return 0;
    }
}
