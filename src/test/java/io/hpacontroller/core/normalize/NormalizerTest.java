package io.hpacontroller.core.normalize;

import io.hpacontroller.core.normalize.ScalingPolicy.Type;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NormalizerTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final int MAX = Integer.MAX_VALUE;

    private static ScalingRules rules(SelectPolicy select, ScalingPolicy... policies) {
        return new ScalingRules(0, select, List.of(policies), null);
    }

    private static ScalingPolicy pods(int value) {
        return new ScalingPolicy(Type.PODS, value, 60);
    }

    private static ScalingPolicy percent(int value) {
        return new ScalingPolicy(Type.PERCENT, value, 60);
    }

    private static Normalization normalize(Behavior behavior, int current, int proposed, int min, int max) {
        return Normalizer.withBehavior(new HpaHistory(), NOW, behavior, current, proposed, min, max);
    }

    @Test
    void disabledScaleUpHoldsTheCountButLetsItScaleDown() {
        Behavior b = new Behavior(rules(SelectPolicy.DISABLED, pods(4)), rules(SelectPolicy.MAX, percent(100)));
        Normalization up = normalize(b, 5, 10, 1, 20);
        assertThat(up.replicas()).isEqualTo(5);
        assertThat(up.limited()).isTrue();
        assertThat(up.limitReason()).isEqualTo("ScaleUpLimit");
        assertThat(normalize(b, 5, 2, 1, 20).replicas()).isEqualTo(2);
    }

    @Test
    void disabledScaleDownHoldsTheCountButLetsItScaleUp() {
        Behavior b = new Behavior(rules(SelectPolicy.MAX, pods(4)), rules(SelectPolicy.DISABLED, percent(100)));
        Normalization down = normalize(b, 5, 2, 1, 20);
        assertThat(down.replicas()).isEqualTo(5);
        assertThat(down.limitReason()).isEqualTo("ScaleDownLimit");
        assertThat(normalize(b, 5, 8, 1, 20).replicas()).isEqualTo(8);
    }

    @Test
    void disabledInBothDirectionsNeverChangesTheCount() {
        Behavior b = new Behavior(rules(SelectPolicy.DISABLED), rules(SelectPolicy.DISABLED));
        for (int proposed : new int[]{0, 1, 5, 9, 100, MAX}) {
            assertThat(normalize(b, 5, proposed, 1, 20).replicas()).as("proposed %d", proposed).isEqualTo(5);
        }
    }

    @Test
    void disabledDirectionsStillHonourMinAndMaxWhenTheyPushTheOtherWay() {
        Behavior b = new Behavior(rules(SelectPolicy.DISABLED), rules(SelectPolicy.DISABLED));
        // the count is held, and min/max only bound a change in the direction being limited
        assertThat(normalize(b, 5, 30, 1, 4).replicas()).isEqualTo(4);
        assertThat(normalize(b, 5, 1, 6, 20).replicas()).isEqualTo(6);
    }

    @Test
    void minSelectTakesTheSmallestChange() {
        Behavior max = new Behavior(rules(SelectPolicy.MAX, pods(4), percent(100)), rules(SelectPolicy.MAX, pods(2), percent(50)));
        Behavior min = new Behavior(rules(SelectPolicy.MIN, pods(4), percent(100)), rules(SelectPolicy.MIN, pods(2), percent(50)));
        assertThat(normalize(max, 10, 100, 1, 100).replicas()).isEqualTo(20);
        assertThat(normalize(min, 10, 100, 1, 100).replicas()).isEqualTo(14);
        assertThat(normalize(max, 10, 1, 1, 100).replicas()).isEqualTo(5);
        assertThat(normalize(min, 10, 1, 1, 100).replicas()).isEqualTo(8);
    }

    @Test
    void policiesCountTheChangesAlreadyMadeInTheirPeriod() {
        Behavior b = new Behavior(rules(SelectPolicy.MAX, pods(4)), rules(SelectPolicy.MAX, pods(2)));
        HpaHistory h = new HpaHistory();
        h.addScaleEvent(true, 3, NOW - 30_000);  // inside the 60 s period: only 1 more allowed
        h.addScaleEvent(true, 9, NOW - 90_000);  // outside
        assertThat(Normalizer.withBehavior(h, NOW, b, 10, 30, 1, 100).replicas()).isEqualTo(11);
    }

    /**
     * An unknown policy type (the API rejects it; {@link Behavior#withDefaults} refuses it) contributes what the
     * previous policy proposed, or 0 when it comes first, as upstream's loop does: it never widens a limit.
     */
    @Test
    void anUnknownPolicyTypeNeverWidensTheLimit() {
        ScalingPolicy unknown = new ScalingPolicy(Type.UNKNOWN, 1000, 60);
        Behavior alone = new Behavior(rules(SelectPolicy.MAX, unknown), rules(SelectPolicy.MIN, unknown));
        assertThat(normalize(alone, 10, 50, 1, 100).replicas()).isEqualTo(10);
        Behavior after = new Behavior(rules(SelectPolicy.MAX, pods(4), unknown), rules(SelectPolicy.MAX, percent(50)));
        assertThat(normalize(after, 10, 50, 1, 100).replicas()).isEqualTo(14);
        Behavior minFirst = new Behavior(rules(SelectPolicy.MIN, unknown, pods(4)), rules(SelectPolicy.MAX, percent(50)));
        assertThat(normalize(minFirst, 10, 50, 1, 100).replicas()).isEqualTo(10);
    }

    @Test
    void hugePoliciesAndCountsDoNotOverflow() {
        Behavior percent = new Behavior(rules(SelectPolicy.MAX, percent(MAX)), rules(SelectPolicy.MAX, percent(100)));
        assertThat(normalize(percent, MAX - 1, MAX, 1, MAX).replicas()).isEqualTo(MAX);
        assertThat(normalize(percent, 1_000_000_000, MAX, 1, MAX).replicas()).isEqualTo(MAX);
        Behavior pods = new Behavior(rules(SelectPolicy.MAX, pods(MAX)), rules(SelectPolicy.MAX, pods(MAX)));
        assertThat(normalize(pods, MAX - 1, MAX, 1, MAX).replicas()).isEqualTo(MAX);
        assertThat(normalize(pods, 5, 0, 2, MAX).replicas()).isEqualTo(2);
        Behavior min = new Behavior(rules(SelectPolicy.MIN, pods(MAX), percent(MAX)), rules(SelectPolicy.MIN, pods(MAX), percent(MAX)));
        assertThat(normalize(min, MAX - 1, MAX, 1, MAX).replicas()).isEqualTo(MAX);
        assertThat(normalize(min, 5, 0, 1, MAX).replicas()).isEqualTo(1);
        HpaHistory history = new HpaHistory();
        history.addScaleEvent(false, MAX, NOW - 1_000);
        history.addScaleEvent(false, MAX, NOW - 2_000);
        assertThat(Normalizer.withBehavior(history, NOW, pods, MAX - 1, MAX, 1, MAX).replicas()).isEqualTo(MAX);
    }

    @Test
    void theLegacyScaleUpLimitDoesNotOverflow() {
        Normalization n = Normalizer.legacy(new HpaHistory(), NOW, 300_000, MAX - 1, MAX, 1, MAX);
        assertThat(n.replicas()).isEqualTo(MAX);
        assertThat(n.limitReason()).isEqualTo("DesiredWithinRange");
        assertThat(Normalizer.legacy(new HpaHistory(), NOW, 300_000, 2, MAX, 1, MAX).replicas()).isEqualTo(4);
        assertThat(Normalizer.legacy(new HpaHistory(), NOW, 300_000, 1_500_000_000, MAX, 1, MAX).replicas()).isEqualTo(MAX);
    }

    @Test
    void scaleUpStabilizationTakesTheLowestRecentRecommendation() {
        Behavior b = new Behavior(new ScalingRules(300, SelectPolicy.MAX, List.of(pods(100)), null),
                new ScalingRules(0, SelectPolicy.MAX, List.of(percent(100)), null));
        HpaHistory h = new HpaHistory();
        h.setRecommendations(List.of(new HpaHistory.Recommendation(6, NOW - 60_000)));
        Normalization n = Normalizer.withBehavior(h, NOW, b, 4, 20, 1, 100);
        assertThat(n.replicas()).isEqualTo(6);
        assertThat(n.ableToScaleReason()).isEqualTo("ScaleUpStabilized");
    }
}
