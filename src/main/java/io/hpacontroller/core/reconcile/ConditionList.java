package io.hpacontroller.core.reconcile;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;

import java.util.ArrayList;
import java.util.List;

/**
 * The HPA's status conditions while a sync works on them. Setting a condition keeps its place in the
 * list (new types are appended) and moves its lastTransitionTime only when its status changes, as
 * upstream's {@code setCondition} does.
 */
final class ConditionList {

    static final String ABLE_TO_SCALE = "AbleToScale";
    static final String SCALING_ACTIVE = "ScalingActive";
    static final String SCALING_LIMITED = "ScalingLimited";
    static final String SCALED_TO_ZERO = "ScaledToZero";
    static final String CONFLICTING_CONTROLLER = Reconciler.CONFLICTING_CONTROLLER;

    private final List<HorizontalPodAutoscalerCondition> conditions = new ArrayList<>();
    private final String now;

    ConditionList(List<HorizontalPodAutoscalerCondition> original, String now) {
        if (original != null) {
            for (HorizontalPodAutoscalerCondition c : original) {
                if (c == null) {
                    continue; // a hand-edited status; nothing to keep
                }
                conditions.add(new HorizontalPodAutoscalerCondition(c.getLastTransitionTime(), c.getMessage(), c.getReason(), c.getStatus(), c.getType()));
            }
        }
        this.now = now;
    }

    void set(String type, boolean status, String reason, String message) {
        String statusText = status ? "True" : "False";
        HorizontalPodAutoscalerCondition existing = find(type);
        if (existing == null) {
            existing = new HorizontalPodAutoscalerCondition();
            existing.setType(type);
            conditions.add(existing);
        }
        if (!statusText.equals(existing.getStatus())) {
            existing.setLastTransitionTime(now);
        }
        existing.setStatus(statusText);
        existing.setReason(reason);
        existing.setMessage(message);
    }

    void remove(String type) {
        conditions.removeIf(c -> type.equals(c.getType()));
    }

    boolean isTrue(String type) {
        HorizontalPodAutoscalerCondition c = find(type);
        return c != null && "True".equals(c.getStatus());
    }

    HorizontalPodAutoscalerCondition find(String type) {
        for (HorizontalPodAutoscalerCondition c : conditions) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    List<HorizontalPodAutoscalerCondition> toList() {
        return new ArrayList<>(conditions);
    }
}
