package io.hpacontroller.core.normalize;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.calc.Tolerances;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code spec.behavior} with every default filled in, as the API server fills it, plus the one default
 * the controller fills itself: a scale-down stabilization window left unset takes the
 * {@code --horizontal-pod-autoscaler-downscale-stabilization} flag.
 *
 * <p>API defaults: scale up with no stabilization window, Max of "4 pods" and "100 percent" per 15 s;
 * scale down with Max of "100 percent" per 15 s.
 */
public record Behavior(ScalingRules scaleUp, ScalingRules scaleDown) {

    private static final List<ScalingPolicy> DEFAULT_SCALE_UP_POLICIES = List.of(
            new ScalingPolicy(ScalingPolicy.Type.PODS, 4, 15),
            new ScalingPolicy(ScalingPolicy.Type.PERCENT, 100, 15));
    /** Limits of the API's validation: a stabilization window of at most an hour, a policy period of at most 30 minutes. */
    public static final int MAX_STABILIZATION_WINDOW_SECONDS = 3600;
    public static final int MAX_POLICY_PERIOD_SECONDS = 1800;

    private static final List<ScalingPolicy> DEFAULT_SCALE_DOWN_POLICIES = List.of(
            new ScalingPolicy(ScalingPolicy.Type.PERCENT, 100, 15));

    /**
     * Fills the defaults into a behavior as the user wrote it.
     *
     * @param behavior                       spec.behavior (not null)
     * @param downscaleStabilizationSeconds  the controller flag
     * @throws IllegalArgumentException when the behavior is one the API server's validation refuses (see
     *                                  {@link #validate}), or a tolerance is not a valid quantity
     */
    public static Behavior withDefaults(HorizontalPodAutoscalerBehavior behavior, int downscaleStabilizationSeconds) {
        return new Behavior(
                rules(behavior.getScaleUp(), 0, DEFAULT_SCALE_UP_POLICIES, "scaleUp"),
                rules(behavior.getScaleDown(), downscaleStabilizationSeconds, DEFAULT_SCALE_DOWN_POLICIES, "scaleDown"));
    }

    /**
     * The tolerances an HPA computes with: the per-direction {@code behavior.scaleUp/scaleDown.tolerance}
     * where set (KEP-4951), the {@code --horizontal-pod-autoscaler-tolerance} flag otherwise.
     *
     * @param behavior the defaulted behavior, null when the HPA has none
     */
    public static Tolerances tolerances(Behavior behavior, double flag) {
        if (behavior == null || (behavior.scaleDown().tolerance() == null && behavior.scaleUp().tolerance() == null)) {
            return Tolerances.of(flag);
        }
        Double down = behavior.scaleDown().tolerance();
        Double up = behavior.scaleUp().tolerance();
        return new Tolerances(down == null ? flag : down, up == null ? flag : up,
                down == null ? Tolerances.Source.FLAG : Tolerances.Source.BEHAVIOR, up == null ? Tolerances.Source.FLAG : Tolerances.Source.BEHAVIOR);
    }

    private static ScalingRules rules(HPAScalingRules given, int defaultWindow, List<ScalingPolicy> defaultPolicies, String direction) {
        if (given == null) {
            return new ScalingRules(defaultWindow, SelectPolicy.MAX, defaultPolicies, null);
        }
        validate(given, direction);
        int window = given.getStabilizationWindowSeconds() != null ? given.getStabilizationWindowSeconds() : defaultWindow;
        SelectPolicy select = given.getSelectPolicy() != null ? SelectPolicy.parse(given.getSelectPolicy()) : SelectPolicy.MAX;
        List<ScalingPolicy> policies = defaultPolicies;
        // fabric8 gives an absent list as an empty one; the API requires at least one policy, so an
        // empty list can only mean "not written"
        if (given.getPolicies() != null && !given.getPolicies().isEmpty()) {
            policies = new ArrayList<>();
            for (HPAScalingPolicy p : given.getPolicies()) {
                policies.add(new ScalingPolicy(ScalingPolicy.Type.parse(p.getType()), p.getValue(), p.getPeriodSeconds()));
            }
        }
        Double tolerance = given.getTolerance() == null ? null : tolerance(given.getTolerance(), direction);
        return new ScalingRules(window, select, policies, tolerance);
    }

    /**
     * The API server's validation of one direction's rules ({@code validateScalingRules}): objects that
     * come from an older API version or were written around validation are refused here rather than
     * given a meaning (an unknown selectPolicy would otherwise act as Max, the most permissive).
     */
    private static void validate(HPAScalingRules rules, String direction) {
        Integer window = rules.getStabilizationWindowSeconds();
        if (window != null && (window < 0 || window > MAX_STABILIZATION_WINDOW_SECONDS)) {
            throw new IllegalArgumentException(direction + ".stabilizationWindowSeconds must be between 0 and "
                    + MAX_STABILIZATION_WINDOW_SECONDS + ", got " + window);
        }
        String select = rules.getSelectPolicy();
        if (select != null && !List.of("Max", "Min", "Disabled").contains(select)) {
            throw new IllegalArgumentException(direction + ".selectPolicy \"" + select + "\" is not one of Max, Min, Disabled");
        }
        if (rules.getPolicies() != null) {
            for (HPAScalingPolicy p : rules.getPolicies()) {
                if (p == null || ScalingPolicy.Type.parse(p.getType()) == ScalingPolicy.Type.UNKNOWN) {
                    throw new IllegalArgumentException(direction + ".policies: type \"" + (p == null ? null : p.getType())
                            + "\" is not one of Pods, Percent");
                }
                if (p.getValue() == null || p.getValue() <= 0) {
                    throw new IllegalArgumentException(direction + ".policies: value must be greater than 0, got " + p.getValue());
                }
                if (p.getPeriodSeconds() == null || p.getPeriodSeconds() <= 0 || p.getPeriodSeconds() > MAX_POLICY_PERIOD_SECONDS) {
                    throw new IllegalArgumentException(direction + ".policies: periodSeconds must be between 1 and "
                            + MAX_POLICY_PERIOD_SECONDS + ", got " + p.getPeriodSeconds());
                }
            }
        }
        if (rules.getTolerance() != null && !(tolerance(rules.getTolerance(), direction) >= 0)) {
            throw new IllegalArgumentException(direction + ".tolerance must not be negative, got " + rules.getTolerance());
        }
    }

    /** A tolerance's value; a malformed one (or one beyond {@link Quantities#outOfBounds}) is named by its field. */
    private static double tolerance(Quantity q, String direction) {
        try {
            return Quantities.approximate(q);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(direction + ".tolerance: " + e.getMessage(), e);
        }
    }
}
