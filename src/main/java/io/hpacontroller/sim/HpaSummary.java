package io.hpacontroller.sim;

/**
 * The summary figures of one HPA spec over a run. Times are milliseconds; -1 means "did not happen" (or,
 * for the capacity figures, that the workload has no capacity to compare with).
 *
 * @param hpa                  the HPA's name
 * @param capacityKnown        whether the workload has a per-pod capacity (else the capacity figures are -1)
 * @param firstScaleUpMillis   from the first load increase to the first scale-up at or after it
 * @param coveredMillis        from the first load increase until the end of the first overload after it (the Ready pods'
 *                             capacity covers the demand again); 0 when the capacity never fell short
 * @param overloadMillis       time during which the demand exceeded the capacity
 * @param replicaSeconds       pods (Ready or not) integrated over time: the cost
 * @param replicaChanges       how many times the replica count was changed (flapping shows here)
 * @param peakReplicas         the most replicas at any time
 * @param finalReplicas        the replicas at the end
 * @param syncs                syncs run
 * @param syncsWithError       syncs that ended with an error (a condition and an event say which)
 * @param metricsFailures      metrics API calls failed by fault injection
 * @param scaleWriteFailures   scale writes failed by fault injection
 * @param scaleWriteConflicts  scale writes made to conflict by fault injection
 * @param invariantChecks      invariant checks made
 * @param invariantViolations  invariant checks that failed
 */
public record HpaSummary(String hpa, boolean capacityKnown, long firstScaleUpMillis, long coveredMillis, long overloadMillis, double replicaSeconds,
                         int replicaChanges, int peakReplicas, int finalReplicas, long syncs, long syncsWithError,
                         long metricsFailures, long scaleWriteFailures, long scaleWriteConflicts, long invariantChecks,
                         long invariantViolations) {

    public long faultsInjected() {
        return metricsFailures + scaleWriteFailures + scaleWriteConflicts;
    }
}
