/**
 * The what-if simulator: replays a load trace through the real decision core.
 *
 * <p>A {@link io.hpacontroller.sim.scenario.Scenario} (read by {@link io.hpacontroller.sim.scenario.ScenarioReader}) names one or
 * more autoscaling/v2 HPAs, a workload model, a metrics pipeline model and a demand trace. For each HPA the
 * {@link io.hpacontroller.sim.Simulation} builds an independent simulated cluster (a workload whose pods start,
 * become Ready and serve the demand; a metrics-server and a custom-metrics adapter that scrape with lag; a
 * store for the HPA's status) and plugs it into the ports of the same
 * {@link io.hpacontroller.core.reconcile.Reconciler} the controller runs, with a
 * {@link io.hpacontroller.sim.VirtualClock}. Nothing here decides a replica count: every decision and every
 * "why" comes from the core's {@link io.hpacontroller.core.trace.ReconcileOutcome}.
 */
package io.hpacontroller.sim;
