package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.apps.Deployment;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A scenario's timeline, printed as it happens (the test's output, target/failsafe-reports/*-output.txt)
 * and kept for assertions: what the test did, and every change of a watched Deployment's replica count,
 * each with the seconds since the scenario began.
 */
public final class Timeline implements AutoCloseable {

    /** A change of a Deployment's spec.replicas, {@code at} seconds after the start. */
    public record Step(String namespace, String deployment, double at, int from, int to) {
    }

    private final String scenario;
    private final Instant start = Instant.now();
    private final List<Step> steps = new CopyOnWriteArrayList<>();
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final List<Runnable> closers = new CopyOnWriteArrayList<>();

    private final java.io.PrintWriter file;

    /** A timeline written, line by line as it happens, to the test's output and to {@code target/node/SCENARIO.timeline}. */
    public Timeline(String scenario) {
        this.scenario = scenario;
        try {
            java.nio.file.Path dir = java.nio.file.Path.of(System.getProperty("user.dir"), "target", "node");
            java.nio.file.Files.createDirectories(dir);
            this.file = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(dir.resolve(scenario + ".timeline")), true);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        mark("start");
    }

    /** Seconds since the start. */
    public double now() {
        return Duration.between(start, Instant.now()).toMillis() / 1000.0;
    }

    public void mark(String what) {
        String line = String.format("%s +%6.1fs %s", scenario, now(), what);
        lines.add(line);
        System.out.println(line);
        synchronized (file) {
            file.println(line);
        }
    }

    /**
     * Records every change of the Deployment's spec.replicas from now on, read every half second (polled: with a dozen
     * watches on one client, a watch's events came late or not at all on a loaded machine).
     */
    public void watchReplicas(RealNode node, String namespace, String deployment) {
        int[] last = {-1};
        poll("timeline-replicas-" + deployment, Duration.ofMillis(500), () -> {
            Deployment d = node.adminClient().apps().deployments().inNamespace(namespace).withName(deployment).get();
            if (d == null) {
                return;
            }
            int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            if (last[0] >= 0 && replicas != last[0]) {
                steps.add(new Step(namespace, deployment, now(), last[0], replicas));
                mark(namespace + "/" + deployment + " " + last[0] + " -> " + replicas + " replicas");
            }
            last[0] = replicas;
        });
    }

    /** Runs {@code read} every {@code period} until the timeline closes; a failed read waits for the next. */
    private void poll(String name, Duration period, Runnable read) {
        java.util.concurrent.ScheduledExecutorService poll = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        poll.scheduleWithFixedDelay(() -> {
            try {
                read.run();
            } catch (RuntimeException e) {
                // the next poll
            }
        }, 0, period.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        closers.add(poll::shutdownNow);
    }

    /**
     * Prints the HPA's status whenever it changes (polled every two seconds): replicas, the metrics it read,
     * its conditions, as {@code kubectl describe} would show them.
     */
    public void watchHpa(RealNode node, io.hpacontroller.hpa.HpaApi api, String namespace, String name) {
        String[] last = {""};
        poll("timeline-hpa-" + name, Duration.ofSeconds(2), () -> {
            var hpa = NodeHpas.read(node.adminClient(), api, namespace, name);
            if (hpa == null || hpa.getStatus() == null) {
                return;
            }
            String now = "hpa " + namespace + "/" + name + ": current " + hpa.getStatus().getCurrentReplicas() + " desired "
                    + hpa.getStatus().getDesiredReplicas() + " metrics " + NodeHpas.currentMetrics(hpa) + " | " + NodeHpas.conditions(hpa);
            if (!now.equals(last[0])) {
                last[0] = now;
                mark(now);
            }
        });
    }

    /** The replica changes of one Deployment so far. */
    public List<Step> steps(String namespace, String deployment) {
        return steps.stream().filter(s -> s.namespace().equals(namespace) && s.deployment().equals(deployment)).toList();
    }

    /** Every replica change so far. */
    public List<Step> steps() {
        return List.copyOf(steps);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        closers.forEach(Runnable::run);
        file.close();
    }
}
