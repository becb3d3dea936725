package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final List<Runnable> closers = new CopyOnWriteArrayList<>();

    public Timeline(String scenario) {
        this.scenario = scenario;
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
    }

    /** Records every change of the Deployment's spec.replicas from now on. */
    public void watchReplicas(RealNode node, String namespace, String deployment) {
        int[] last = {-1};
        informers.add(node.adminClient().apps().deployments().inNamespace(namespace).withName(deployment).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Deployment d) {
                changed(d);
            }

            @Override
            public void onUpdate(Deployment before, Deployment after) {
                changed(after);
            }

            @Override
            public void onDelete(Deployment d, boolean unknown) {
            }

            private void changed(Deployment d) {
                int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
                synchronized (last) {
                    if (last[0] >= 0 && replicas != last[0]) {
                        steps.add(new Step(namespace, deployment, now(), last[0], replicas));
                        mark(namespace + "/" + deployment + " " + last[0] + " -> " + replicas + " replicas");
                    }
                    last[0] = replicas;
                }
            }
        }, 0));
    }

    /**
     * Prints the HPA's status whenever it changes (polled every two seconds): replicas, the metrics it read,
     * its conditions, as {@code kubectl describe} would show them.
     */
    public void watchHpa(RealNode node, io.hpacontroller.live.HpaApi api, String namespace, String name) {
        java.util.concurrent.ScheduledExecutorService poll = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "timeline-hpa-" + name);
            t.setDaemon(true);
            return t;
        });
        String[] last = {""};
        poll.scheduleWithFixedDelay(() -> {
            try {
                var hpa = NodeHpas.read(node.adminClient(), api, namespace, name);
                if (hpa == null || hpa.getStatus() == null) {
                    return;
                }
                String now = "hpa " + name + ": current " + hpa.getStatus().getCurrentReplicas() + " desired " + hpa.getStatus().getDesiredReplicas()
                        + " metrics " + NodeHpas.currentMetrics(hpa) + " | " + NodeHpas.conditions(hpa);
                if (!now.equals(last[0])) {
                    last[0] = now;
                    mark(now);
                }
            } catch (RuntimeException e) {
                // the next poll
            }
        }, 0, 2, java.util.concurrent.TimeUnit.SECONDS);
        closers.add(poll::shutdownNow);
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
        informers.forEach(SharedIndexInformer::close);
        closers.forEach(Runnable::run);
    }
}
