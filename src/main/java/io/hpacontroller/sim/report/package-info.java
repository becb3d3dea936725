/**
 * What a simulation writes: the timeline and events as CSV, the self-contained HTML report with its SVG
 * chart, and the summary printed on the console.
 */
package io.hpacontroller.sim.report;
