package io.hpacontroller.core.port;

import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;

import java.util.List;

/**
 * Port: which HPAs of a namespace control a set of pods. Upstream refuses to scale when the pods of an
 * HPA's target are also selected by another HPA (AmbiguousSelector).
 */
public interface SelectorOwnership {

    /** No HPA ever shares pods: for drivers that see a single HPA. */
    SelectorOwnership NONE = new SelectorOwnership() {
        @Override
        public List<String> controllers(String hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
            return List.of(hpaKey);
        }

        @Override
        public void forget(String hpaKey) {
        }
    };

    /**
     * Records the HPA's current selector (when the driver still knows the HPA) and returns the keys ("namespace/name") of every HPA whose
     * selector matches at least one of these pods (the HPA itself included when it matches any).
     */
    List<String> controllers(String hpaKey, String namespace, Selector selector, List<PodInfo> pods);

    /** The HPA is gone. */
    void forget(String hpaKey);
}
