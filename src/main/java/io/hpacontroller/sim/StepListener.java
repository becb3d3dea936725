package io.hpacontroller.sim;

import java.util.List;

/**
 * Told the model's state at every point where it is evaluated from time 0 on: every step, and every sync
 * that falls between two steps. demand.csv is written from it while the simulation runs.
 */
public interface StepListener {

    StepListener NONE = (t, demand, hpas) -> { };

    /**
     * @param timeMillis simulation time
     * @param demand     the demand then
     * @param hpas       each HPA spec's workload then, in the scenario's order
     */
    void step(long timeMillis, double demand, List<Workload> hpas);

    /**
     * One HPA spec's workload at a step.
     *
     * @param capacity  the demand its Ready pods can serve; +infinity when the workload has no capacity
     * @param readyPods its Ready pods
     * @param pods      its pods, Ready or not
     */
    record Workload(double capacity, int readyPods, int pods) {
    }
}
