package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;

import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * What the driver hands the core for one sync: the HPA as of this controller's own last status write (the informer's
 * copy, or the API's while the informer does not hold that write yet: {@code HpaStatusUpdater#current}) and its
 * controls, parsed once from that HPA. The core asks nothing back: it decides from these two values.
 */
record SyncInput(HorizontalPodAutoscaler hpa, Parsed<HpaControls> controls) {

    /**
     * @param cached           the HPA as the informer holds it
     * @param withOwnLastWrite the HPA as of the status port's last write
     * @param controlsOf       the controls of an HPA (the driver's cache of them)
     */
    static SyncInput of(HpaKey key, HorizontalPodAutoscaler cached, UnaryOperator<HorizontalPodAutoscaler> withOwnLastWrite,
                        BiFunction<HpaKey, HorizontalPodAutoscaler, Parsed<HpaControls>> controlsOf) {
        HorizontalPodAutoscaler hpa = withOwnLastWrite.apply(cached);
        return new SyncInput(hpa, controlsOf.apply(key, hpa));
    }
}
