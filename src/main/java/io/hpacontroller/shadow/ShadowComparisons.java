package io.hpacontroller.shadow;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What shadow mode exports: per autoscaling/v2 HPA, the replica count this controller would want
 * ({@code hpa_controller_shadow_desired_replicas}) next to the built-in controller's
 * ({@code hpa_controller_builtin_desired_replicas}), both set at each comparison; a counter of
 * disagreements; and one log line per disagreement with both values and both controllers' reasons.
 * A disagreement while the shadow's history is still shorter than the HPA's look-back is logged as
 * warming up and not counted.
 */
public final class ShadowComparisons implements Shadow.Listener {

    private static final Logger LOG = LoggerFactory.getLogger("io.hpacontroller.shadow");

    private final Gauge shadowDesired;
    private final Gauge builtinDesired;
    private final Counter disagreements;

    public ShadowComparisons(PrometheusRegistry registry) {
        shadowDesired = Gauge.builder().name("hpa_controller_shadow_desired_replicas")
                .help("Shadow mode: the replica count this controller would set for the autoscaling/v2 HPA, computed when the built-in controller last wrote its status")
                .labelNames("namespace", "name").register(registry);
        builtinDesired = Gauge.builder().name("hpa_controller_builtin_desired_replicas")
                .help("Shadow mode: status.desiredReplicas the built-in HPA controller last wrote")
                .labelNames("namespace", "name").register(registry);
        disagreements = Counter.builder().name("hpa_controller_shadow_disagreements")
                .help("Shadow mode: comparisons in which this controller would have set another replica count than the built-in controller (warm-up excluded)")
                .labelNames("namespace", "name").register(registry);
    }

    @Override
    public void onComparison(Shadow.Comparison c) {
        shadowDesired.labelValues(c.namespace(), c.name()).set(c.shadowDesired());
        builtinDesired.labelValues(c.namespace(), c.name()).set(c.builtinDesired());
        if (c.agrees()) {
            LOG.debug("{}/{}: both want {} replicas (from {})", c.namespace(), c.name(), c.shadowDesired(), c.currentReplicas());
            return;
        }
        String warmUp = c.warmingUp() ? " (warming up: seen for " + Math.max(0, c.known().toSeconds()) + "s of the " + c.lookBack().toSeconds()
                + "s its decisions look back, so the built-in controller may remember more)" : "";
        if (!c.warmingUp()) {
            disagreements.labelValues(c.namespace(), c.name()).inc();
        }
        LOG.atInfo().addKeyValue("hpa", c.namespace() + "/" + c.name()).addKeyValue("currentReplicas", c.currentReplicas())
                .addKeyValue("builtinDesiredReplicas", c.builtinDesired()).addKeyValue("shadowDesiredReplicas", c.shadowDesired())
                .addKeyValue("reason", c.reason()).addKeyValue("warmingUp", c.warmingUp())
                .log("shadow disagrees on {}/{}: from {} replicas the built-in controller wants {} ({}), this controller {} ({}){}",
                        c.namespace(), c.name(), c.currentReplicas(), c.builtinDesired(), c.builtinReason(), c.shadowDesired(), c.reason(), warmUp);
    }

    @Override
    public void onGone(String namespace, String name) {
        shadowDesired.remove(namespace, name);
        builtinDesired.remove(namespace, name);
        disagreements.remove(namespace, name);
    }
}
