package io.hpacontroller.sim;

import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A Deployment with its pods, and the load it serves. Writing spec.replicas creates pods (Pending, then
 * Running, then Ready after the model's delays) or deletes them at once (the least ready and newest first,
 * like the ReplicaSet controller). The demand is spread evenly over the Ready pods, each serving at most
 * the model's capacity; pods burn CPU for what they serve, plus idle and start-up CPU.
 */
final class SimulatedWorkload {

    /** When the pods that exist at the start were created: long enough ago that they count as settled. */
    static final long SETTLED_PODS_CREATED_AT = -86_400_000L;

    private final String name;
    private final Scenario.Workload model;
    private final ContainerInfo[] containers;
    private final long horizonMillis;
    private final List<SimulatedPod> pods = new ArrayList<>();
    private final double[] cpuShare;
    private final double[] memoryShare;
    private int specReplicas;
    private int created;

    /** The demand offered to the workload (served or not), for Object and External metrics. */
    final UsageCounter offered;

    SimulatedWorkload(String name, Scenario.Workload model, long start, long horizonMillis) {
        this.name = name;
        this.model = model;
        this.containers = model.containers().toArray(new ContainerInfo[0]);
        this.horizonMillis = horizonMillis;
        this.cpuShare = shares("cpu");
        this.memoryShare = shares("memory");
        this.offered = new UsageCounter(start, horizonMillis);
        this.specReplicas = model.replicas();
        for (int i = 0; i < model.replicas(); i++) {
            long c = SETTLED_PODS_CREATED_AT;
            pods.add(new SimulatedPod(nextName(), c, Math.min(start, c + model.startedAfterMillis()), Math.min(start, c + model.readyAfterMillis()), horizonMillis));
        }
    }

    /** How a pod's usage of a resource splits over its containers: by their requests, evenly without any. */
    private double[] shares(String resource) {
        double[] s = new double[containers.length];
        long total = 0;
        for (ContainerInfo c : containers) {
            total += c.requests().get(resource).orElse(0);
        }
        for (int i = 0; i < containers.length; i++) {
            s[i] = total == 0 ? 1.0 / containers.length : (double) containers[i].requests().get(resource).orElse(0) / total;
        }
        return s;
    }

    private String nextName() {
        return String.format("%s-%05d", name, created++);
    }

    String name() {
        return name;
    }

    Map<String, String> labels() {
        return model.labels();
    }

    int specReplicas() {
        return specReplicas;
    }

    int podCount() {
        return pods.size();
    }

    List<SimulatedPod> pods() {
        return pods;
    }

    int readyCount(long t) {
        int n = 0;
        for (SimulatedPod p : pods) {
            if (p.isReady(t)) {
                n++;
            }
        }
        return n;
    }

    /** The demand the Ready pods can serve together; +infinity without a per-pod capacity. */
    double capacity(long t) {
        return capacityOf(readyCount(t));
    }

    /** The demand {@code ready} Ready pods can serve together; +infinity without a per-pod capacity. */
    double capacityOf(int ready) {
        return model.capacity() == null ? Double.POSITIVE_INFINITY : ready * model.capacity();
    }

    boolean hasCapacity() {
        return model.capacity() != null;
    }

    /** The replica controller: create or delete pods until there are {@code replicas}. */
    void scaleTo(int replicas, long t) {
        specReplicas = replicas;
        while (pods.size() < replicas) {
            pods.add(new SimulatedPod(nextName(), t, t + model.startedAfterMillis(), t + model.readyAfterMillis(), horizonMillis));
        }
        if (pods.size() > replicas) {
            // deleted first: pending, then not ready, then the newest
            pods.sort(Comparator.comparing((SimulatedPod p) -> p.isRunning(t)).thenComparing(p -> p.isReady(t))
                    .thenComparing(Comparator.comparingLong((SimulatedPod p) -> p.createdAt).reversed()));
            pods.subList(0, pods.size() - replicas).clear();
            pods.sort(Comparator.comparingLong((SimulatedPod p) -> p.createdAt).thenComparing(p -> p.name));
        }
    }

    /** Runs the workload from {@code from} to {@code to} with the state and demand at {@code from}. */
    void advance(long from, long to, double demand) {
        offered.add(to, demand);
        double share = share(demand, readyCount(from), true);
        for (SimulatedPod p : pods) {
            if (!p.isRunning(from)) {
                continue;
            }
            double served = p.isReady(from) ? share : 0;
            p.cpu.add(to, cpuMilli(p, from, served));
            p.served.add(to, served);
        }
    }

    /**
     * The demand each of {@code ready} Ready pods serves: an even share, at most the capacity when {@code capped}
     * (a saturated pod serves, and burns, no more).
     */
    double share(double demand, int ready, boolean capped) {
        double share = ready == 0 ? 0 : demand / ready;
        return capped && model.capacity() != null ? Math.min(share, model.capacity()) : share;
    }

    /** The CPU a running pod burns at {@code t} serving {@code served}: idle, served and (right after its start) start-up CPU. */
    private double cpuMilli(SimulatedPod p, long t, double served) {
        double cpu = settledCpuMilli(served);
        if (model.startupCpu() != null && t < p.startedAt + model.startupCpu().durationMillis()) {
            cpu += model.startupCpu().milli();
        }
        return cpu;
    }

    /** The CPU a pod long past its start burns serving {@code served}. */
    double settledCpuMilli(double served) {
        return model.idleCpuMilli() + served * model.cpuPerDemand();
    }

    /** The pods as the API would show them had each been Ready for long (no start-up CPU either). */
    List<PodInfo> settledPodInfos() {
        List<PodInfo> out = new ArrayList<>(pods.size());
        long settled = VirtualClock.epochMillis(SETTLED_PODS_CREATED_AT);
        for (SimulatedPod p : pods) {
            out.add(new PodInfo(p.name, PodPhase.RUNNING, ReadyStatus.TRUE, settled, settled, false, containers, null));
        }
        return out;
    }

    /** The pods as the API shows them at {@code t}. */
    List<PodInfo> podInfos(long t) {
        List<PodInfo> out = new ArrayList<>(pods.size());
        for (SimulatedPod p : pods) {
            out.add(p.info(t, containers));
        }
        return out;
    }

    /** A pod's containers' usage: its CPU split over the containers, and the constant memory. */
    List<ContainerUsage> containerUsage(double cpuMilli) {
        List<ContainerUsage> out = new ArrayList<>(containers.length);
        for (int i = 0; i < containers.length; i++) {
            out.add(new ContainerUsage(containers[i].name(), ResourceAmounts.of(Map.of(
                    "cpu", Math.round(cpuMilli * cpuShare[i]),
                    "memory", Math.round(model.memoryMilli() * memoryShare[i])))));
        }
        return out;
    }
}
