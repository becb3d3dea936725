package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.hpa.HpaApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.IntSupplier;

/**
 * The autoscaling/v2 HPAs this controller does not reconcile ({@code --hpa-apis} without autoscaling/v2, the
 * default): left to the built-in HPA controller, which is where a user who sees no condition and no event on one must
 * look. Their number is a metric, and a log line names it and {@code --hpa-apis} once the informers have synced, then
 * at each change. Wraps the HPA informers' events to see the changes.
 */
final class BuiltinHpasLeft implements Informers.HpaEvents {

    private static final Logger LOG = LoggerFactory.getLogger(BuiltinHpasLeft.class);

    private final Informers.HpaEvents inner;
    private final ControllerOptions options;
    private final IntSupplier cached;
    private boolean started;
    private int logged = -1;

    /** @param cached how many autoscaling/v2 HPAs the informers hold */
    BuiltinHpasLeft(Informers.HpaEvents inner, ControllerOptions options, IntSupplier cached) {
        this.inner = inner;
        this.options = options;
        this.cached = cached;
    }

    /** How many autoscaling/v2 HPAs are left to the built-in controller: 0 when this controller reconciles them. */
    int count() {
        return options.apis().contains(HpaApi.BUILTIN) ? 0 : cached.getAsInt();
    }

    /** Logs the count now (the informers have synced), then at each change. */
    synchronized void start() {
        started = true;
        logIfChanged();
    }

    private synchronized void changed() {
        if (started) {
            logIfChanged();
        }
    }

    private void logIfChanged() {
        int n = count();
        if (n == logged || options.apis().contains(HpaApi.BUILTIN)) {
            return;
        }
        logged = n;
        LOG.info("{} autoscaling/v2 HorizontalPodAutoscaler{} left to the built-in HPA controller: --hpa-apis ({}) does not include"
                        + " autoscaling/v2, so this controller writes no scale, status, condition or event for {}{}", n, n == 1 ? " is" : "s are",
                options.apis().isEmpty() ? "empty" : String.join(",", options.apis().stream().map(HpaApi::apiVersion).sorted().toList()),
                n == 1 ? "it" : "them", options.shadow() ? " (--shadow compares its decisions with the built-in controller's)" : "");
    }

    @Override
    public void onAdd(HorizontalPodAutoscaler hpa, HpaApi api) {
        inner.onAdd(hpa, api);
        if (api == HpaApi.BUILTIN) {
            changed();
        }
    }

    @Override
    public void onUpdate(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa, HpaApi api) {
        inner.onUpdate(old, hpa, api);
    }

    @Override
    public void onDelete(HorizontalPodAutoscaler hpa, HpaApi api) {
        inner.onDelete(hpa, api);
        if (api == HpaApi.BUILTIN) {
            changed();
        }
    }
}
