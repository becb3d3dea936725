/**
 * The simulator's input: a scenario file's model ({@link io.hpacontroller.sim.scenario.Scenario}, its
 * {@link io.hpacontroller.sim.scenario.LoadTrace} and {@link io.hpacontroller.sim.scenario.MetricsPipeline}) and
 * the {@link io.hpacontroller.sim.scenario.ScenarioReader} that reads and validates it. Nothing here runs a
 * simulation; the engine in {@link io.hpacontroller.sim} reads these records.
 */
package io.hpacontroller.sim.scenario;
