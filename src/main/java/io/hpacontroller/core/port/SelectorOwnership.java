package io.hpacontroller.core.port;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;

import java.util.List;

/**
 * Port: which HPAs of a namespace control a set of pods. Upstream refuses to scale when the pods of an
 * HPA's target are also selected by another HPA (AmbiguousSelector).
 */
public interface SelectorOwnership {

    /** At most this many HPAs are named in an answer: what an answer holds does not grow with the HPAs of the namespace. */
    int NAMED_MAX = 3;

    /**
     * The HPAs controlling some pods: how many ({@code count}, the asking HPA included when it is one of them) and
     * the keys ("namespace/name") of at most {@value #NAMED_MAX} of them, the first in key order ({@code named}).
     */
    record Controllers(int count, List<String> named) {

        public Controllers {
            named = List.copyOf(named);
        }

        /** None. */
        public static final Controllers NONE = new Controllers(0, List.of());

        /** Whether {@code named} lists every one of them. */
        public boolean allNamed() {
            return named.size() == count;
        }
    }

    /** No HPA ever shares pods: for drivers that see a single HPA. */
    SelectorOwnership NONE = new SelectorOwnership() {
        @Override
        public Controllers controllers(HpaKey hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
            return new Controllers(1, List.of(hpaKey.toString()));
        }

        @Override
        public void forget(HpaKey hpaKey) {
        }
    };

    /**
     * Records the HPA's current selector (when the driver still knows the HPA) and returns the HPAs whose
     * selector matches at least one of these pods (the HPA itself included when it matches any).
     */
    Controllers controllers(HpaKey hpaKey, String namespace, Selector selector, List<PodInfo> pods);

    /** The HPA is gone. */
    void forget(HpaKey hpaKey);
}
