package io.hpacontroller.shard;

import io.hpacontroller.core.HpaKey;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

class RingTest {

    private static List<HpaKey> keys(Random random, int n) {
        List<HpaKey> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String group = random.nextInt(4) == 0 ? "autoscaling.hpa-controller.io" : HpaKey.BUILTIN_GROUP;
            keys.add(HpaKey.of(group, "ns-" + random.nextInt(40), "hpa-" + Long.toString(random.nextLong(), 36)));
        }
        return keys;
    }

    private static Map<String, Integer> load(List<HpaKey> keys, Set<String> members) {
        Map<String, Integer> load = new HashMap<>();
        keys.forEach(k -> load.merge(Ring.owner(k, members), 1, Integer::sum));
        return load;
    }

    @Test
    void threeHundredHpasOverThreeMembersLeaveTheBusiestWithinOnePointThreeTimesTheMean() {
        Set<String> members = Set.of("hpa-controller-7d9f-abcde", "hpa-controller-7d9f-fghij", "hpa-controller-7d9f-klmno");
        Random random = new Random(37);
        double worst = 0;
        for (int set = 0; set < 50; set++) {
            Map<String, Integer> load = load(keys(random, 300), members);
            assertThat(load.keySet()).isEqualTo(members);
            worst = Math.max(worst, load.values().stream().mapToInt(i -> i).max().orElseThrow() / 100.0);
        }
        // the chance of one set above 1.3x is about 1e-4 for a fair hash (binomial, n=300, p=1/3): 50 sets stay within it
        assertThat(worst).isLessThanOrEqualTo(1.3).isGreaterThan(1.05);
    }

    /**
     * Issue 37's figures on paper: 100,000 HPAs over 10 replicas named as a Deployment's pods, the busiest's share over the
     * mean, and the fraction that moves when one leaves (printed for docs/benchmarks.md). A fair hash gives a busiest
     * member about 2 standard deviations (95 HPAs, 1 %) above the mean; the bounds allow 4 %.
     */
    @Test
    void aHundredThousandHpasOverTenReplicasBalanceAndTheShareMovedWhenOneLeaves() {
        List<HpaKey> keys = keys(new Random(100_000), 100_000);
        Set<String> ten = new TreeSet<>();
        Random names = new Random(10);
        while (ten.size() < 10) {
            ten.add("hpa-controller-6c9f8d7b5-" + Long.toString(Math.abs(names.nextLong()) % 60_466_176L, 36));
        }
        List<String> owners = keys.stream().map(k -> Ring.owner(k, ten)).toList();
        Map<String, Integer> load = new HashMap<>();
        owners.forEach(o -> load.merge(o, 1, Integer::sum));
        double mean = keys.size() / 10.0;
        double busiest = load.values().stream().mapToInt(i -> i).max().orElseThrow() / mean;
        double idlest = load.values().stream().mapToInt(i -> i).min().orElseThrow() / mean;
        String leaving = ten.iterator().next();
        Set<String> nine = new TreeSet<>(ten);
        nine.remove(leaving);
        int moved = 0;
        for (int i = 0; i < keys.size(); i++) {
            String before = owners.get(i);
            if (!before.equals(Ring.owner(keys.get(i), nine))) {
                assertThat(before).isEqualTo(leaving);
                moved++;
            }
        }
        System.out.printf("ring: 100,000 HPAs over 10 replicas: busiest %.4f x the mean, idlest %.4f x; one leaving moves %.4f of them"
                + " (its own share %.4f)%n", busiest, idlest, moved / (double) keys.size(), load.get(leaving) / (double) keys.size());
        assertThat(busiest).isBetween(1.0, 1.04);
        assertThat(idlest).isBetween(0.96, 1.0);
        assertThat(moved).isEqualTo(load.get(leaving));
        assertThat(moved / (double) keys.size()).isBetween(0.096, 0.104);
    }

    @Test
    void aMemberJoiningTakesAboutOneNthAndMovesNothingElse() {
        List<HpaKey> keys = keys(new Random(2), 12_000);
        Set<String> three = Set.of("a", "b", "c");
        Set<String> four = Set.of("a", "b", "c", "d");
        int moved = 0;
        for (HpaKey k : keys) {
            String before = Ring.owner(k, three);
            String after = Ring.owner(k, four);
            if (!before.equals(after)) {
                assertThat(after).isEqualTo("d");
                moved++;
            }
        }
        assertThat(moved / (double) keys.size()).isBetween(0.235, 0.265);
    }

    @Test
    void aMemberLeavingMovesOnlyItsOwnHpas() {
        List<HpaKey> keys = keys(new Random(3), 12_000);
        Set<String> four = Set.of("a", "b", "c", "d");
        Set<String> three = Set.of("a", "c", "d");
        int moved = 0;
        for (HpaKey k : keys) {
            String before = Ring.owner(k, four);
            if (!before.equals(Ring.owner(k, three))) {
                assertThat(before).isEqualTo("b");
                moved++;
            }
        }
        assertThat(moved / (double) keys.size()).isBetween(0.235, 0.265);
    }

    @Test
    void theSameMembersGiveTheSameOwnerInAnyOrderAndAcrossProcesses() {
        HpaKey key = HpaKey.of(HpaKey.BUILTIN_GROUP, "shop", "web");
        String owner = Ring.owner(key, List.of("x", "y", "z"));
        assertThat(Ring.owner(key, List.of("z", "x", "y"))).isEqualTo(owner);
        assertThat(Ring.owner(key, new TreeSet<>(Set.of("y", "z", "x")))).isEqualTo(owner);
        // the hash is fixed, not String.hashCode's: pinned so that a change that would split mixed versions fails here
        assertThat(owner).isEqualTo("z");
        assertThat(Ring.owner(HpaKey.of(HpaKey.BUILTIN_GROUP, "shop", "api"), List.of("x", "y", "z"))).isEqualTo("y");
        assertThat(Ring.owner(key, List.of())).isNull();
    }
}
