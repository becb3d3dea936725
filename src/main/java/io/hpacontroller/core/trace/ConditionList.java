package io.hpacontroller.core.trace;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The HPA's status conditions while a sync works on them. Setting a condition keeps its place in the
 * list (new types are appended) and moves its lastTransitionTime only when its status changes, as
 * upstream's {@code setCondition} does.
 */
public final class ConditionList {

    public static final String ABLE_TO_SCALE = "AbleToScale";
    public static final String SCALING_ACTIVE = "ScalingActive";
    public static final String SCALING_LIMITED = "ScalingLimited";
    public static final String SCALED_TO_ZERO = "ScaledToZero";
    public static final String CONFLICTING_CONTROLLER = "ConflictingController";

    private final List<HorizontalPodAutoscalerCondition> conditions = new ArrayList<>();
    private final Set<String> setNow = new HashSet<>();
    private final String now;

    public ConditionList(List<HorizontalPodAutoscalerCondition> original, String now) {
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

    public void set(String type, boolean status, String reason, String message) {
        String statusText = status ? "True" : "False";
        setNow.add(type);
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

    public void remove(String type) {
        conditions.removeIf(c -> type.equals(c.getType()));
    }

    /**
     * Removes the conditions this list was not given by {@link #set} whose reason is one of {@code reasons}: a reason
     * the sync that set it stands behind only while it applies (a mode, a control), so a sync that does not set it
     * again must not leave it beside the conditions it did set. Other reasons stay as they were, as upstream leaves
     * a condition its sync did not reach.
     */
    public void removeUnsetWithReasons(Set<String> reasons) {
        conditions.removeIf(c -> !setNow.contains(c.getType()) && reasons.contains(c.getReason()));
    }

    public boolean isTrue(String type) {
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

    public List<HorizontalPodAutoscalerCondition> toList() {
        return new ArrayList<>(conditions);
    }
}
