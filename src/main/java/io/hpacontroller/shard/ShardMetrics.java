package io.hpacontroller.shard;

import io.hpacontroller.api.WriteGate;
import io.hpacontroller.controller.HorizontalController;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The metrics of {@code --sharding}: members, the HPAs this replica holds, its changes of view (handovers), its refused stale writes. */
public final class ShardMetrics {

    private ShardMetrics() {
    }

    public static void register(PrometheusRegistry registry, Sharding sharding, HorizontalController controller, WriteGate gate) {
        GaugeWithCallback.builder().name("hpa_controller_shard_members")
                .help("Live members of the ring (replicas holding a membership Lease that has not expired), this one included, as this replica saw them last")
                .callback(cb -> cb.call(sharding.members())).register(registry);
        GaugeWithCallback.builder().name("hpa_controller_owned_hpas")
                .help("HPAs this replica syncs: claimed on the ring and synced here since")
                .callback(cb -> cb.call(controller.histories().size())).register(registry);
        CounterWithCallback.builder().name("hpa_controller_shard_handovers")
                .help("Changes of the member set this replica acts on (each: stop syncing what it loses, drain, publish its view)")
                .callback(cb -> cb.call(sharding.handovers())).register(registry);
        CounterWithCallback.builder().name("hpa_controller_shard_handover_seconds")
                .help("Time spent in those changes, from the stop to the published view")
                .callback(cb -> cb.call(sharding.handoverTime().toNanos() / 1e9)).register(registry);
        CounterWithCallback.builder().name("hpa_controller_shard_refused_writes")
                .help("Writes refused as stale, none sent or none applied: reason=lease, this replica's Lease was not renewed within the renew"
                        + " deadline (its claims may have moved on); reason=fenced, the kept history's resourceVersion had moved on (409)")
                .labelNames("reason")
                .callback(cb -> {
                    cb.call(gate.refusedOnLease(), "lease");
                    cb.call(gate.refusedAsFenced(), "fenced");
                }).register(registry);
    }
}
