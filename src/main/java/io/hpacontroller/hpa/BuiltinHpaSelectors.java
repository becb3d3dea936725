package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.SelectorOwnership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The selectors of the autoscaling/v2 HPAs this controller watches but does not reconcile (the built-in
 * controller does), recorded in the selector index so the AmbiguousSelector check of a mirror HPA sees
 * them: a mirror HPA and a built-in HPA on the same pods would fight, and only the mirror one can be told
 * to stand back. Read-only: the target's scale (from the workload informers, or one GET for other kinds),
 * when the HPA is created, then once per sync period (a change of its spec is picked up within one).
 */
public final class BuiltinHpaSelectors {

    private static final Logger LOG = LoggerFactory.getLogger(BuiltinHpaSelectors.class);

    private final ScaleClient scales;
    private final SelectorOwnership index;

    public BuiltinHpaSelectors(ScaleClient scales, SelectorOwnership index) {
        this.scales = scales;
        this.index = index;
    }

    /**
     * Records the selector of the HPA's target. When it cannot be read, the selector recorded last stays:
     * a mirror HPA on the same pods keeps refusing rather than start a fight.
     */
    public void refresh(HorizontalPodAutoscaler hpa) {
        CrossVersionObjectReference ref = hpa.getSpec() == null ? null : hpa.getSpec().getScaleTargetRef();
        if (ref == null || ref.getKind() == null || ref.getName() == null) {
            return;
        }
        String namespace = hpa.getMetadata().getNamespace();
        try {
            ScaleTarget scale = scales.get(namespace, ref);
            if (scale.selector() != null && !scale.selector().isEmpty()) {
                index.controllers(HpaKey.of(hpa), namespace, Selector.parse(scale.selector()), List.of());
            }
        } catch (ApiException | IllegalArgumentException e) {
            LOG.debug("selector of the target of {} not read: {}", HpaKey.of(hpa), e.getMessage());
        }
    }
}
