package io.hpacontroller.sim;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.sim.scenario.Scenario;

import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded faults in front of a simulated cluster's ports: metrics API calls that fail (a gap in the
 * metrics), scale writes that fail (HTTP 500) or conflict (HTTP 409, someone else wrote the workload).
 * It counts what it injected, in total and within the current sync, so the invariants can be checked.
 */
final class FaultInjection {

    private final Scenario.Faults faults;
    private final Random random;
    private final SimulatedCluster cluster;

    long metricsFailuresInjected;
    long scaleWriteFailuresInjected;
    long scaleWriteConflictsInjected;

    int metricsCallsThisSync;
    int metricsFailuresThisSync;
    int scaleWritesThisSync;
    int scaleWritesSucceededThisSync;

    FaultInjection(Scenario.Faults faults, long seed, SimulatedCluster cluster) {
        this.faults = faults;
        this.random = new Random(seed);
        this.cluster = cluster;
    }

    void startSync() {
        metricsCallsThisSync = 0;
        metricsFailuresThisSync = 0;
        scaleWritesThisSync = 0;
        scaleWritesSucceededThisSync = 0;
    }

    private void metricsCall(String api) throws ApiException {
        metricsCallsThisSync++;
        if (faults.metricsFailure() > 0 && random.nextDouble() < faults.metricsFailure()) {
            metricsFailuresThisSync++;
            metricsFailuresInjected++;
            throw new ApiException("the server is currently unable to handle the request (get " + api + ") [injected fault]");
        }
    }

    MetricsSource metrics(MetricsSource delegate) {
        return new MetricsSource() {
            @Override
            public List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException {
                metricsCall("pods.metrics.k8s.io");
                return delegate.podUsage(namespace, podSelector, resource);
            }

            @Override
            public Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException {
                metricsCall("pods.custom.metrics.k8s.io " + metricName);
                return delegate.podsMetric(namespace, metricName, podSelector, metricSelector);
            }

            @Override
            public ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException {
                metricsCall("custom.metrics.k8s.io " + metricName);
                return delegate.objectMetric(namespace, metricName, object, metricSelector);
            }

            @Override
            public ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException {
                metricsCall("external.metrics.k8s.io " + metricName);
                return delegate.externalMetric(namespace, metricName, metricSelector);
            }
        };
    }

    ScaleClient scale(ScaleClient delegate) {
        return new ScaleClient() {
            @Override
            public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
                return delegate.get(namespace, target);
            }

            @Override
            public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) throws ApiException {
                scaleWritesThisSync++;
                if (faults.scaleWriteConflict() > 0 && random.nextDouble() < faults.scaleWriteConflict()) {
                    scaleWriteConflictsInjected++;
                    cluster.bumpResourceVersion(); // another writer got there first: the write below conflicts
                }
                if (faults.scaleWriteFailure() > 0 && random.nextDouble() < faults.scaleWriteFailure()) {
                    scaleWriteFailuresInjected++;
                    throw new ApiException("Internal error occurred: etcdserver: request timed out [injected fault]");
                }
                delegate.update(namespace, target, current, replicas);
                scaleWritesSucceededThisSync++;
            }
        };
    }
}
