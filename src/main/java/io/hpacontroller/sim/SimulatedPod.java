package io.hpacontroller.sim;

import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;

/**
 * One pod of a simulated workload: Pending from creation, Running from {@code startedAt}, Ready from
 * {@code readyAt}; it counts the CPU it burns and the demand it serves.
 */
final class SimulatedPod {

    final String name;
    final long createdAt;
    final long startedAt;
    final long readyAt;
    final UsageCounter cpu;
    final UsageCounter served;

    SimulatedPod(String name, long createdAt, long startedAt, long readyAt, long horizonMillis) {
        this.name = name;
        this.createdAt = createdAt;
        this.startedAt = startedAt;
        this.readyAt = readyAt;
        this.cpu = new UsageCounter(startedAt, horizonMillis);
        this.served = new UsageCounter(startedAt, horizonMillis);
    }

    boolean isRunning(long t) {
        return t >= startedAt;
    }

    boolean isReady(long t) {
        return t >= readyAt;
    }

    /**
     * The pod as the API shows it at time {@code t}. A Pending pod has no start time; a started pod has a
     * Ready condition that went False when it started and True when it became Ready.
     */
    PodInfo info(long t, ContainerInfo[] containers) {
        if (!isRunning(t)) {
            return new PodInfo(name, PodPhase.PENDING, ReadyStatus.FALSE, VirtualClock.epochMillis(createdAt), PodInfo.NO_TIME,
                    false, containers, null);
        }
        boolean ready = isReady(t);
        return new PodInfo(name, PodPhase.RUNNING, ready ? ReadyStatus.TRUE : ReadyStatus.FALSE,
                VirtualClock.epochMillis(ready ? readyAt : startedAt), VirtualClock.epochMillis(startedAt), false, containers, null);
    }
}
