package io.hpacontroller.shard;

import io.hpacontroller.core.HpaKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ShardClaimsTest {

    private static final List<HpaKey> KEYS = new ArrayList<>();

    static {
        for (int i = 0; i < 300; i++) {
            KEYS.add(HpaKey.of(HpaKey.BUILTIN_GROUP, "ns", "hpa-" + i));
        }
    }

    /** The replicas and what their Leases publish (the "API server"), driven step by step as the Sharding loop does. */
    private final Map<String, ShardClaims> replicas = new LinkedHashMap<>();
    private final Map<String, SortedSet<String>> leases = new TreeMap<>();

    private ShardClaims join(String id) {
        ShardClaims claims = new ShardClaims(id);
        replicas.put(id, claims);
        leases.put(id, new TreeSet<>());
        return claims;
    }

    private SortedMap<String, MemberLease> list() {
        SortedMap<String, MemberLease> live = new TreeMap<>();
        leases.forEach((id, view) -> live.put(id, new MemberLease(id, 15, Instant.EPOCH, view, "1")));
        return live;
    }

    /** One period of one replica: restrict to the members it sees, drain, publish, then read the others. */
    private void step(String id) throws InterruptedException {
        ShardClaims c = replicas.get(id);
        SortedSet<String> target = new TreeSet<>(leases.keySet());
        if (!target.equals(c.publishedView()) || c.changing()) {
            c.restrict(target);
            assertThat(c.drain(Duration.ofSeconds(5))).isTrue();
            leases.put(id, target);
            c.published(target);
        }
        c.observed(list());
        assertNoKeyClaimedTwice();
    }

    private void assertNoKeyClaimedTwice() {
        for (HpaKey key : KEYS) {
            assertThat(replicas.values().stream().filter(c -> c.owns(key)).count()).as(key.toString()).isLessThanOrEqualTo(1);
        }
    }

    private long claimedByNobody() {
        return KEYS.stream().filter(k -> replicas.values().stream().noneMatch(c -> c.owns(k))).count();
    }

    @Test
    void replicasStartingTogetherSettleOnOneOwnerEachAndNeverTwo() throws InterruptedException {
        join("a");
        join("b");
        join("c");
        Random random = new Random(5);
        for (int i = 0; i < 30; i++) {
            step(List.of("a", "b", "c").get(random.nextInt(3)));
        }
        for (String id : List.of("a", "b", "c", "a", "b", "c")) {
            step(id);
        }
        assertThat(claimedByNobody()).isZero();
        assertThat(replicas.get("a").ownedOf(KEYS) + replicas.get("b").ownedOf(KEYS) + replicas.get("c").ownedOf(KEYS)).isEqualTo(KEYS.size());
    }

    @Test
    void aFourthReplicaJoiningTakesOnlyWhatItsOwnersReleasedInEveryInterleaving() throws InterruptedException {
        for (long seed = 0; seed < 6; seed++) {
            replicas.clear();
            leases.clear();
            List<String> ids = new ArrayList<>(List.of("a", "b", "c"));
            ids.forEach(this::join);
            for (int round = 0; round < 3; round++) {
                for (String id : ids) {
                    step(id);
                }
            }
            Map<HpaKey, String> before = new LinkedHashMap<>();
            KEYS.forEach(k -> replicas.forEach((id, c) -> {
                if (c.owns(k)) {
                    before.put(k, id);
                }
            }));
            assertThat(before).hasSize(KEYS.size());
            join("d");
            ids.add("d");
            Random random = new Random(seed);
            for (int i = 0; i < 24; i++) {
                step(ids.get(random.nextInt(4)));
            }
            for (int round = 0; round < 2; round++) {
                for (String id : ids) {
                    step(id);
                }
            }
            assertThat(claimedByNobody()).isZero();
            long moved = KEYS.stream().filter(k -> !replicas.get(before.get(k)).owns(k)).count();
            assertThat(KEYS.stream().filter(k -> !replicas.get(before.get(k)).owns(k))).allMatch(k -> replicas.get("d").owns(k));
            assertThat(moved / (double) KEYS.size()).isBetween(0.18, 0.32);
        }
    }

    @Test
    void aChangeWaitsForTheSyncInFlightOfAnHpaItLoses() throws Exception {
        ShardClaims a = join("a");
        step("a");
        step("a");
        HpaKey key = KEYS.stream().filter(k -> "b".equals(Ring.owner(k, List.of("a", "b")))).findFirst().orElseThrow();
        assertThat(a.begin(key, 0)).isTrue();
        a.restrict(new TreeSet<>(List.of("a", "b")));
        assertThat(a.owns(key)).as("no new sync of what it loses").isFalse();
        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
            try {
                return a.drain(Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(drained).as("the drain waits for the sync in flight").isNotDone();
        assertThat(a.drain(Duration.ofMillis(50))).isFalse();
        a.end(key);
        assertThat(drained.get(1, TimeUnit.MINUTES)).isTrue();
    }

    @Test
    void aReplicaWhoseRenewalsFailedClaimsNothingUntilItPublishedAndReadAgain() throws InterruptedException {
        ShardClaims a = join("a");
        step("a");
        step("a");
        assertThat(a.ownedOf(KEYS)).isEqualTo(KEYS.size());
        a.stale();
        assertThat(a.ownedOf(KEYS)).isZero();
        step("a");
        step("a");
        assertThat(a.ownedOf(KEYS)).isEqualTo(KEYS.size());
    }
}
