package io.hpacontroller.sim;

import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.Random;

/**
 * Seeded faults before the calls to a simulated cluster's ports: metrics API calls that fail (a gap in the
 * metrics), scale writes that fail (HTTP 500) or conflict (HTTP 409, someone else wrote the workload).
 * It counts what it injected, in total and within the current sync, so the invariants can be checked.
 */
final class FaultInjection {

    private final Scenario.Faults faults;
    private final Random random;

    long metricsFailuresInjected;
    long scaleWriteFailuresInjected;
    long scaleWriteConflictsInjected;

    int metricsCallsThisSync;
    int metricsFailuresThisSync;
    int scaleWritesThisSync;
    int scaleWritesSucceededThisSync;

    FaultInjection(Scenario.Faults faults, long seed) {
        this.faults = faults;
        this.random = new Random(seed);
    }

    void startSync() {
        metricsCallsThisSync = 0;
        metricsFailuresThisSync = 0;
        scaleWritesThisSync = 0;
        scaleWritesSucceededThisSync = 0;
    }

    void beforeMetricRead(InMemoryCluster.MetricRead read) throws ApiException {
        metricsCallsThisSync++;
        if (faults.metricsFailure() > 0 && random.nextDouble() < faults.metricsFailure()) {
            metricsFailuresThisSync++;
            metricsFailuresInjected++;
            String api = switch (read.api()) {
                case RESOURCE -> "pods.metrics.k8s.io";
                case PODS -> "pods.custom.metrics.k8s.io " + read.metric();
                case OBJECT -> "custom.metrics.k8s.io " + read.metric();
                case EXTERNAL -> "external.metrics.k8s.io " + read.metric();
            };
            throw new ApiException("the server is currently unable to handle the request (get " + api + ") [injected fault]");
        }
    }

    void beforeScaleWrite(InMemoryCluster cluster) throws ApiException {
        scaleWritesThisSync++;
        if (faults.scaleWriteConflict() > 0 && random.nextDouble() < faults.scaleWriteConflict()) {
            scaleWriteConflictsInjected++;
            cluster.scaledByOthers(cluster.scale.specReplicas()); // another writer got there first: the write conflicts
        }
        if (faults.scaleWriteFailure() > 0 && random.nextDouble() < faults.scaleWriteFailure()) {
            scaleWriteFailuresInjected++;
            throw new ApiException("Internal error occurred: etcdserver: request timed out [injected fault]");
        }
    }

    void scaleWritten() {
        scaleWritesSucceededThisSync++;
    }
}
