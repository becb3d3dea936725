package io.hpacontroller.core.port;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodUsage;

import java.util.List;
import java.util.Map;

/**
 * Port: the three metrics APIs, as upstream's {@code MetricsClient}. Each method returns what the API
 * returned, unfiltered; an empty answer is not an error here (the reconciler decides that).
 */
public interface MetricsSource {

    /**
     * metrics.k8s.io PodMetrics of the pods the selector matches.
     *
     * @param resource the resource the caller wants ("cpu"), so that a failure can be attributed to it
     */
    List<PodUsage> podUsage(String namespace, Selector podSelector, String resource) throws ApiException;

    /** custom.metrics.k8s.io: a metric of each pod the selector matches, by pod name. */
    Map<String, PodMetric> podsMetric(String namespace, String metricName, Selector podSelector, Selector metricSelector) throws ApiException;

    /** custom.metrics.k8s.io: a metric of one object. */
    ObjectMetricValue objectMetric(String namespace, String metricName, CrossVersionObjectReference object, Selector metricSelector) throws ApiException;

    /** external.metrics.k8s.io: the values of a metric that the selector matches. */
    ExternalMetricValues externalMetric(String namespace, String metricName, Selector metricSelector) throws ApiException;

    /** A single object's metric: milli-value and timestamp (epoch millis). */
    record ObjectMetricValue(long value, long timestamp) {
    }

    /** An external metric's values (milli) and the timestamp of the first. */
    record ExternalMetricValues(List<Long> values, long timestamp) {
    }
}
