package io.hpacontroller.ops;

import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.controller.WorkQueue;
import io.hpacontroller.core.cadence.MetricsPipelines;
import io.hpacontroller.core.trace.MetricTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.hpa.HpaApi;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.function.BooleanSupplier;

/**
 * The controller's Prometheus metrics, under upstream's names so existing dashboards and alerts work:
 * {@code horizontal_pod_autoscaler_controller_*} (reconciliations and metric computations by action
 * and error, their durations, desired replicas per HPA, number of HPAs; desired replicas also by
 * {@code api_group}, so an HPA and a mirror HPA of the same name are two series), the client-go work-queue
 * metrics for the queue named "horizontalpodautoscaler", and the leader-election status. The ones updated at
 * every sync sample no exemplars (there are no traces to link to, and sampling cost CPU at each sync).
 */
public final class ControllerMetrics implements HorizontalController.SyncListener {

    static final String SUBSYSTEM = "horizontal_pod_autoscaler_controller_";
    static final String QUEUE = "horizontalpodautoscaler";

    private final Counter reconciliations;
    private final Histogram reconciliationDuration;
    private final Counter metricComputations;
    private final Histogram metricComputationDuration;
    private final Gauge desiredReplicas;
    private final Histogram queueDuration;
    private final Histogram workDuration;
    private final Histogram metricAge;

    public ControllerMetrics(PrometheusRegistry registry, HorizontalController controller, BooleanSupplier leading, String leaseName) {
        reconciliations = Counter.builder().name(SUBSYSTEM + "reconciliations")
                .help("Number of reconciliations of HPA controller. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. Note that if both spec and internal errors happen during a reconciliation, the first one to occur is reported in `error` label.")
                .labelNames("action", "error").withoutExemplars().register(registry);
        reconciliationDuration = Histogram.builder().name(SUBSYSTEM + "reconciliation_duration_seconds")
                .help("The time(seconds) that the HPA controller takes to reconcile once. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'.")
                .classicOnly().classicExponentialUpperBounds(0.001, 2, 15).labelNames("action", "error").withoutExemplars().register(registry);
        metricComputations = Counter.builder().name(SUBSYSTEM + "metric_computation")
                .help("Number of metric computations. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type")
                .labelNames("action", "error", "metric_type").withoutExemplars().register(registry);
        metricComputationDuration = Histogram.builder().name(SUBSYSTEM + "metric_computation_duration_seconds")
                .help("The time(seconds) that the HPA controller takes to calculate one metric. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. The label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type")
                .classicOnly().classicExponentialUpperBounds(0.001, 2, 15).labelNames("action", "error", "metric_type").withoutExemplars().register(registry);
        desiredReplicas = Gauge.builder().name(SUBSYSTEM + "desired_replicas")
                .help("Current desired replica count for each HPA")
                .labelNames("namespace", "hpa_name", "api_group").withoutExemplars().register(registry);
        GaugeWithCallback.builder().name(SUBSYSTEM + "num_horizontal_pod_autoscalers")
                .help("Current number of controlled HPA objects.")
                .callback(cb -> cb.call(controller.hpaCount())).register(registry);

        GaugeWithCallback.builder().name("hpa_controller_hpas_not_reconciled")
                .help("HPAs of an API this controller does not reconcile (not in --hpa-apis), by API group: the autoscaling/v2 ones are left to"
                        + " the built-in HPA controller")
                .labelNames("api_group").callback(cb -> cb.call(controller.builtinHpasLeft(), HpaApi.BUILTIN.group())).register(registry);

        WorkQueue queue = controller.queue();
        GaugeWithCallback.builder().name("workqueue_depth").help("Current depth of workqueue").labelNames("name")
                .callback(cb -> cb.call(queue.depth(), QUEUE)).register(registry);
        CounterWithCallback.builder().name("workqueue_adds").help("Total number of adds handled by workqueue").labelNames("name")
                .callback(cb -> cb.call(queue.totalAdds(), QUEUE)).register(registry);
        CounterWithCallback.builder().name("workqueue_retries").help("Total number of retries handled by workqueue").labelNames("name")
                .callback(cb -> cb.call(queue.totalRequeues(), QUEUE)).register(registry);
        queueDuration = Histogram.builder().name("workqueue_queue_duration_seconds")
                .help("How long in seconds an item stays in workqueue before being requested.")
                .classicOnly().classicExponentialUpperBounds(1e-8, 10, 10).labelNames("name").withoutExemplars().register(registry);
        workDuration = Histogram.builder().name("workqueue_work_duration_seconds")
                .help("How long in seconds processing an item from workqueue takes.")
                .classicOnly().classicExponentialUpperBounds(1e-8, 10, 10).labelNames("name").withoutExemplars().register(registry);
        CounterWithCallback.builder().name("hpa_controller_events").help("Kubernetes events about HPAs, by result: posted (or count bumped), "
                        + "rate_limited (the HPA had used up its event rate: a burst of 25, then one per 5 minutes), or dropped because the queue of events to post was full")
                .labelNames("result").callback(cb -> {
                    cb.call(controller.eventsPosted(), "posted");
                    cb.call(controller.eventsRateLimited(), "rate_limited");
                    cb.call(controller.eventsDropped(), "dropped");
                }).register(registry);
        CounterWithCallback.builder().name("hpa_controller_status_update_failures")
                .help("HPA status writes that failed (the API server refused them or did not answer), by the HPA's API group; each is also a "
                        + "FailedUpdateStatus event and a log line with the server's message")
                .labelNames("api_group").callback(cb -> {
                    for (HpaApi api : HpaApi.values()) {
                        cb.call(controller.statusWriteFailures(api), api.group());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("hpa_controller_conflicting_writers")
                .help("1 for each HPA whose status another controller wrote lately (in the last 10 minutes), besides this one: "
                        + "the ConflictingController condition")
                .labelNames("namespace", "hpa_name", "api_group").callback(cb -> {
                    for (HpaKey key : controller.conflictingWriters()) {
                        cb.call(1, labels(key));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("hpa_controller_history_persisted")
                .help("1 while the HPAs' histories are written to the cluster (HorizontalPodAutoscalerHistory objects), 0 while they are kept "
                        + "in memory only because the API server does not serve their CRD (scaling goes on, as upstream's); no series with --persist-history=false")
                .callback(cb -> {
                    Boolean persisted = controller.historyPersisted();
                    if (persisted != null) {
                        cb.call(persisted ? 1 : 0);
                    }
                }).register(registry);
        metricAge = Histogram.builder().name("hpa_controller_metric_age_seconds")
                .help("How old each metric's sample was at the sync that read it (the sync's time minus the sample's timestamp, the end of its "
                        + "window), by the metrics API it was read from: metrics.k8s.io, custom.metrics.k8s.io or external.metrics.k8s.io")
                .classicOnly().classicUpperBounds(0.5, 1, 2, 3, 5, 7.5, 10, 12.5, 15, 20, 25, 30, 45, 60, 120).labelNames("api")
                .withoutExemplars().register(registry);
        MetricsPipelines pipelines = controller.pipelines();
        GaugeWithCallback.builder().name("hpa_controller_metrics_pipeline_period_seconds")
                .help("The learned interval between two samples of each metrics pipeline (the API group it is read from: metrics.k8s.io, "
                        + "custom.metrics.k8s.io or external.metrics.k8s.io), from the syncs that read a new sample; no series while nothing is learned")
                .labelNames("pipeline").callback(cb -> pipelines.forEach(System.currentTimeMillis(),
                        (p, e) -> cb.call(e.interval() / 1000.0, p))).register(registry);
        GaugeWithCallback.builder().name("hpa_controller_metrics_pipeline_delay_seconds")
                .help("The median age of each metrics pipeline's new samples when they become readable (their stamps to the learned "
                        + "phase): the kubelet stamps each container 1-10 s before a scrape")
                .labelNames("pipeline").callback(cb -> pipelines.forEach(System.currentTimeMillis(),
                        (p, e) -> cb.call(e.delay() / 1000.0, p))).register(registry);
        GaugeWithCallback.builder().name("hpa_controller_metrics_pipeline_phase_seconds")
                .help("When within each interval since the Unix epoch each metrics pipeline's new sample becomes readable, as learned")
                .labelNames("pipeline").callback(cb -> pipelines.forEach(System.currentTimeMillis(),
                        (p, e) -> cb.call(e.phaseIn(e.interval(), 0) / 1000.0, p))).register(registry);
        GaugeWithCallback.builder().name("leader_election_master_status")
                .help("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.")
                .labelNames("name").callback(cb -> cb.call(leading.getAsBoolean() ? 1 : 0, leaseName)).register(registry);
    }

    @Override
    public void onSync(SyncReport report) {
        ReconcileOutcome o = report.outcome();
        if (o == null) {
            desiredReplicas.remove(labels(report.key())); // the HPA is gone: so is its series
            return;
        }
        queueDuration.labelValues(QUEUE).observe(report.queueWaitNanos() / 1e9);
        workDuration.labelValues(QUEUE).observe(report.totalNanos() / 1e9);
        String action = o.action().label();
        String error = o.error().label();
        reconciliations.labelValues(action, error).inc();
        reconciliationDuration.labelValues(action, error).observe(report.totalNanos() / 1e9);
        for (ReconcileOutcome.MetricComputation m : o.computations()) {
            metricComputations.labelValues(m.action().label(), m.error().label(), m.metricType()).inc();
            metricComputationDuration.labelValues(m.action().label(), m.error().label(), m.metricType()).observe(m.nanos() / 1e9);
        }
        if (o.trace() != null) {
            for (MetricTrace m : o.trace().metrics()) {
                String api = m.ageMillis() < 0 ? null : MetricsPipelines.groupOf(m.type());
                if (api != null) {
                    metricAge.labelValues(api).observe(m.ageMillis() / 1000.0);
                }
            }
        }
        if (o.desiredReplicas() >= 0) {
            desiredReplicas.labelValues(labels(report.key())).set(o.desiredReplicas());
        }
    }

    /** namespace, hpa_name and api_group of a key: an HPA and its mirror twin are two series. */
    private static String[] labels(HpaKey key) {
        return new String[] {key.namespace(), key.name(), HpaApi.ofKey(key).group()};
    }
}
