package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A Deployment whose pods burn the CPU a test asks for, and the load balancer in front of it: the test sets
 * the total demand in millicores ({@link #demand}), and it is split evenly over the pods that are Ready (as
 * a Service would send them the requests), none to the others. Each pod's share is a file on the node
 * ({@code hostPath}, one file per pod, named after it) that the pod reads as it runs; a pod burns its
 * share of CPU time (see {@link #SCRIPT}), under a CPU limit so a mistake cannot take the machine. A pod becomes Ready after a start-up delay (a readiness probe on a file
 * its script writes then), as an application that warms up.
 */
public final class CpuWorkload implements AutoCloseable {

    /**
     * The pod's program: after the start-up delay (spent spinning at its CPU limit with {@code STARTUP_BURN=1}, as a
     * JVM warming up) it serves HTTP (its readiness probe), then every few milliseconds it compares the
     * CPU time its container has used (cpuacct, or cpu.stat on cgroup v2) with what its share asks since the last
     * look, and spins while it owes (at most 0.2 s of debt), otherwise sleeps until it owes again (its own looking
     * is CPU it counts, so a small share is not drowned in the loop's cost): the CPU burnt follows the demand
     * even on a loaded machine, where a busy loop timed by the wall clock would get a fraction of it.
     * {@code read} and {@code usleep} run inside busybox's shell (no process per look).
     */
    private static final String SCRIPT = """
            f="/demand/$HOSTNAME"
            u=/sys/fs/cgroup/cpuacct/cpuacct.usage; [ -r "$u" ] || u=/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage
            cpu() { if [ -r "$u" ]; then read -r c < "$u"; else while read -r k v; do [ "$k" = usage_usec ] && c=$((v * 1000)); done < /sys/fs/cgroup/cpu.stat; fi; }
            ticks() { read -r t _ < /proc/uptime; t=${t%.*}${t#*.}; }
            if [ "$STARTUP_BURN" = 1 ]; then ticks; e=$((t + STARTUP_DELAY * 100)); while [ "$t" -lt "$e" ]; do i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done; ticks; done
            else sleep "$STARTUP_DELAY"; fi
            mkdir -p /tmp/www; echo ready > /tmp/www/index.html; httpd -p 8080 -h /tmp/www
            cpu; c0=$c; ticks; t0=$t; owed=0
            while :; do
              m=0; [ -f "$f" ] && read -r m < "$f"
              case "$m" in ''|*[!0-9]*) m=0 ;; esac
              ticks; cpu
              owed=$((owed + (t - t0) * m * 10000 - (c - c0))); t0=$t; c0=$c
              if [ "$m" -eq 0 ]; then owed=0; usleep 1000000
              elif [ "$owed" -gt 0 ]; then
                [ "$owed" -gt 200000000 ] && owed=200000000
                i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done
              else s=$((-owed / m + 1000)); [ "$s" -gt 1000000 ] && s=1000000; usleep "$s"; fi
            done
            """;


    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final Path demandDir;
    private final ScheduledExecutorService balancer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cpu-workload-balancer");
        t.setDaemon(true);
        return t;
    });
    private final SharedIndexInformer<Pod> pods;
    private volatile int totalMillicores;

    private CpuWorkload(KubernetesClient client, String namespace, String name, Path demandDir) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
        this.demandDir = demandDir;
        this.pods = client.pods().inNamespace(namespace).withLabel("app", name).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                rebalance();
            }

            @Override
            public void onUpdate(Pod before, Pod after) {
                rebalance();
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
                rebalance();
            }
        }, 0);
        balancer.scheduleWithFixedDelay(this::balance, 1, 1, TimeUnit.SECONDS); // a missed event costs at most a second
    }

    /** What a pod of the workload is: its CPU request and limit, and how long it takes to become Ready. */
    public record Shape(String cpuRequest, String cpuLimit, Duration startupDelay) {
        public static Shape of(String cpuRequest, Duration startupDelay) {
            return new Shape(cpuRequest, "200m", startupDelay);
        }
    }

    /** Creates the Deployment ({@code app: NAME}) in the namespace and starts balancing (no demand yet). */
    public static CpuWorkload create(RealNode node, String namespace, String name, int replicas, Shape shape) {
        Path dir = node.directory().resolve("demand").resolve(namespace + "-" + name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node.adminClient().apps().deployments().inNamespace(namespace).resource(deployment(name, replicas, shape, dir)).create();
        return new CpuWorkload(node.adminClient(), namespace, name, dir);
    }

    static Deployment deployment(String name, int replicas, Shape shape, Path demandDir) {
        return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().withTerminationGracePeriodSeconds(1L).withEnableServiceLinks(false).withAutomountServiceAccountToken(false)
                .addNewContainer().withName("burn").withImage(LocalImages.BUSYBOX).withImagePullPolicy("Never")
                .withCommand("sh", "-c", SCRIPT)
                .addNewEnv().withName("STARTUP_DELAY").withValue(Long.toString(shape.startupDelay().toSeconds())).endEnv()
                .addNewEnv().withName("STARTUP_BURN").withValue("0").endEnv()
                .withNewResources().withRequests(Map.of("cpu", new Quantity(shape.cpuRequest()), "memory", new Quantity("8Mi")))
                .withLimits(Map.of("cpu", new Quantity(shape.cpuLimit()), "memory", new Quantity("32Mi"))).endResources()
                // an HTTP probe: an exec probe would run runc in the container every second and cost it some milli-CPU
                .withNewReadinessProbe().withNewHttpGet().withPath("/").withPort(new IntOrString(8080)).endHttpGet()
                .withPeriodSeconds(1).withFailureThreshold(1).endReadinessProbe()
                .addNewVolumeMount().withName("demand").withMountPath("/demand").withReadOnly(true).endVolumeMount()
                .endContainer()
                .addNewVolume().withName("demand").withNewHostPath().withPath(demandDir.toString()).withType("Directory").endHostPath().endVolume()
                .endSpec().endTemplate()
                .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate().withMaxSurge(new IntOrString("25%"))
                .withMaxUnavailable(new IntOrString(0)).endRollingUpdate().endStrategy()
                .endSpec().build();
    }

    /**
     * Rolls out a new ReplicaSet (one surge pod at a time, none unavailable) whose pods take {@code startupDelay} to
     * become Ready, spinning at their CPU limit all that time when {@code burn}.
     */
    public void rollOut(Duration startupDelay, boolean burn) {
        client.apps().deployments().inNamespace(namespace).withName(name).edit(d -> {
            d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().forEach(e -> {
                if (e.getName().equals("STARTUP_DELAY")) {
                    e.setValue(Long.toString(startupDelay.toSeconds()));
                } else if (e.getName().equals("STARTUP_BURN")) {
                    e.setValue(burn ? "1" : "0");
                }
            });
            return d;
        });
    }

    /** Whether the Deployment's rollout is over: every replica of the latest template, available, and no other pod. */
    public boolean rolledOut() {
        Deployment d = client.apps().deployments().inNamespace(namespace).withName(name).get();
        var st = d.getStatus();
        int want = d.getSpec().getReplicas();
        return st != null && d.getMetadata().getGeneration().equals(st.getObservedGeneration()) && Integer.valueOf(want).equals(st.getUpdatedReplicas())
                && Integer.valueOf(want).equals(st.getReplicas()) && Integer.valueOf(want).equals(st.getAvailableReplicas());
    }

    /** The Deployment's spec.replicas now (what an HPA set). */
    public int replicas() {
        return client.apps().deployments().inNamespace(namespace).withName(name).get().getSpec().getReplicas();
    }

    /** The total demand, in millicores, split over the ready pods from now on. */
    public void demand(int millicores) {
        totalMillicores = millicores;
        rebalance();
    }

    public int demand() {
        return totalMillicores;
    }

    /** The pods of the workload that are Ready now (as the balancer sees them). */
    public List<Pod> readyPods() {
        return pods.getStore().list().stream().filter(CpuWorkload::ready).toList();
    }

    private void rebalance() {
        balancer.execute(this::balance);
    }

    private synchronized void balance() {
        List<Pod> all = pods.getStore().list();
        List<Pod> ready = all.stream().filter(CpuWorkload::ready).toList();
        int share = ready.isEmpty() ? 0 : (int) Math.round((double) totalMillicores / ready.size());
        for (Pod p : all) {
            write(p.getMetadata().getName(), ready.contains(p) ? share : 0);
        }
    }

    static boolean ready(Pod p) {
        if (p.getMetadata().getDeletionTimestamp() != null || p.getStatus() == null || p.getStatus().getConditions() == null) {
            return false;
        }
        for (PodCondition c : p.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return false;
    }

    private void write(String pod, int millicores) {
        try { // whole or nothing: the pod reads the file every second
            Path tmp = demandDir.resolve("." + pod + ".tmp");
            Files.writeString(tmp, millicores + "\n");
            Files.move(tmp, demandDir.resolve(pod), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return name;
    }

    public String namespace() {
        return namespace;
    }

    @Override
    public void close() {
        pods.close();
        balancer.shutdownNow();
    }
}
