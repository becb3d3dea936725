/**
 * {@code explain}: one read-only sync of one HPA against a cluster, with the running controller's flags and
 * history when it can be reached, answered in words and as the decision trace. The core decides exactly as
 * in the controller; the ports here read the cluster and record, instead of making, every write.
 */
package io.hpacontroller.explain;
