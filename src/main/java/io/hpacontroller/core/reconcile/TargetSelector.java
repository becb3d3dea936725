package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.HpaKey;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.labels.ParsedSelectors;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.trace.ConditionList;

import java.util.List;

/**
 * The selector check of a sync (upstream {@code validateSelector} and its ambiguity check): the target scale's
 * selector text, parsed once and cached, and refused when it is missing, does not parse, or selects pods another
 * HPA controls too. A refusal sets ScalingActive=False and records a Warning event.
 */
final class TargetSelector {

    private final PodSource pods;
    private final SelectorOwnership ownership;
    private final EventRecorder events;
    private final ParsedSelectors parsed = new ParsedSelectors();

    TargetSelector(PodSource pods, SelectorOwnership ownership, EventRecorder events) {
        this.pods = pods;
        this.ownership = ownership;
        this.events = events;
    }

    /** The target's selector, parsed, or the error that makes it unusable and its reason (the condition and event already set). */
    record Check(Selector selector, String error, String reason) {
    }

    Check check(HorizontalPodAutoscaler hpa, HpaKey key, String namespace, String text, ConditionList conditions) {
        if (text == null || text.isEmpty()) {
            String error = "selector is required";
            events.record(hpa, EventRecorder.Type.Warning, "SelectorRequired", error);
            conditions.set(ConditionList.SCALING_ACTIVE, false, "InvalidSelector", "the HPA target's scale is missing a selector");
            return new Check(null, error, "InvalidSelector");
        }
        Selector selector;
        try {
            selector = parsed.of(text);
        } catch (IllegalArgumentException e) {
            String error = "couldn't convert selector into a corresponding internal selector object: " + e.getMessage();
            events.record(hpa, EventRecorder.Type.Warning, "InvalidSelector", error);
            conditions.set(ConditionList.SCALING_ACTIVE, false, "InvalidSelector", error);
            return new Check(null, error, "InvalidSelector");
        }
        if (ownership != SelectorOwnership.NONE) {
            List<PodInfo> selected = pods.list(namespace, selector);
            SelectorOwnership.Controllers controllers = ownership.controllers(key, namespace, selector, selected);
            if (controllers.count() > 1) {
                String error = ambiguous(text, controllers);
                events.record(hpa, EventRecorder.Type.Warning, "AmbiguousSelector", error);
                conditions.set(ConditionList.SCALING_ACTIVE, false, "AmbiguousSelector", error);
                return new Check(null, error, "AmbiguousSelector");
            }
        }
        return new Check(selector, null, null);
    }

    /**
     * Upstream's message, which lists every HPA on the pods, when there are at most {@value SelectorOwnership#NAMED_MAX};
     * beyond, the first of them by key and "and more". A deliberate difference (docs/differences-from-upstream.md): the
     * message, and so each HPA's condition, event, log line and trace, stays bounded with 2,000 HPAs on one target, and
     * holds no count, so that an HPA added to (or removed from) the pods does not change the status of every other one.
     */
    static String ambiguous(String selectorText, SelectorOwnership.Controllers controllers) {
        return "pods by selector " + selectorText + " are controlled by multiple HPAs: " + controllers.named()
                + (controllers.allNamed() ? "" : " and more");
    }

    /** The HPA is gone. */
    void forget(HpaKey key) {
        ownership.forget(key);
    }
}
