package io.hpacontroller.shard;

import io.hpacontroller.controller.OwnedKeys;
import io.hpacontroller.controller.PhasedCadence;
import io.hpacontroller.controller.WorkQueue;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.testing.ManualTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gained HPA's place in the schedule handed over with it: replicas (their Leases in memory, each with its own
 * queue and cadence) on one manual clock, their workers played every 100 ms, the chart's timings (15 s lease, 10 s renew
 * deadline, 2 s retry, 15 s period). Each sync is recorded with its replica.
 */
class HandoverTest {

    private static final Duration PERIOD = Duration.ofSeconds(15);
    private static final Duration LEASE = Duration.ofSeconds(15);
    private static final Duration RETRY = Duration.ofSeconds(2);
    private static final Duration TICK = Duration.ofMillis(100);

    private final ManualTime time = new ManualTime(Instant.parse("2026-11-28T12:00:00.300Z"));
    private final List<HpaKey> keys = new ArrayList<>();
    private final Map<String, Replica> replicas = new LinkedHashMap<>();
    /** Each key's syncs: when (ms since the start) and by which replica. */
    private final Map<HpaKey, List<Sync>> syncs = new HashMap<>();
    private final Leases leases = new Leases();

    /** The members' Leases in memory, each update guarded by its resourceVersion as the API server does (a quick fake). */
    private static final class Leases extends ShardLeases {
        private final Map<String, MemberLease> stored = new TreeMap<>();
        private long version;

        Leases() {
            super(null, "hpa-controller", "hpa-controller");
        }

        @Override
        synchronized List<MemberLease> list() {
            return List.copyOf(stored.values());
        }

        @Override
        synchronized MemberLease write(MemberLease lease) throws ApiException {
            MemberLease before = stored.get(lease.identity());
            if (!java.util.Objects.equals(lease.resourceVersion(), before == null ? null : before.resourceVersion())) {
                throw new ApiException("conflict");
            }
            MemberLease after = new MemberLease(lease.identity(), lease.leaseDurationSeconds(), lease.renewTime(), lease.view(),
                    String.valueOf(++version), lease.handover());
            stored.put(lease.identity(), after);
            return after;
        }

        @Override
        synchronized MemberLease read(String identity) {
            return stored.get(identity);
        }
    }

    private record Sync(long atMillis, String by) {
    }

    /** One replica: its membership and its queue; its workers play only while it runs. */
    private final class Replica {
        final String id;
        final Sharding sharding;
        final WorkQueue queue;
        long nextStep;
        /** When it last lost each key (ms since the start). */
        final Map<HpaKey, Long> lostAt = new HashMap<>();
        /** Keys its workers took and were refused (not its own any more, or not yet). */
        int refused;
        /** When its workers start (ticker time): a process's informers sync before they do. */
        final long workersFrom;
        boolean running = true;

        Replica(String id, Duration workersAfter) {
            this.id = id;
            this.sharding = new Sharding(leases, new LeaseSettings("hpa-controller", "hpa-controller", id, LEASE, Duration.ofSeconds(10), RETRY),
                    time, time);
            this.queue = new WorkQueue(time, new PhasedCadence(PERIOD, time, time), time.nanos());
            sharding.schedule(queue, new OwnedKeys() { // the queue holds only the keys this replica owns
                @Override
                public Collection<HpaKey> all() {
                    return keys;
                }

                @Override
                public void gained(HpaKey key) {
                    queue.add(key);
                }

                @Override
                public void lost(HpaKey key) {
                    queue.forget(key);
                    lostAt.put(key, time.elapsed().toMillis());
                }
            });
            nextStep = time.nanos();
            workersFrom = time.nanos() + workersAfter.toNanos();
        }

        void tick() {
            if (!running) {
                return;
            }
            if (time.nanos() >= nextStep) {
                sharding.step();
                nextStep += RETRY.toNanos();
            }
            if (time.nanos() < workersFrom) {
                return;
            }
            for (Optional<WorkQueue.Item> item = queue.poll(); item.isPresent(); item = queue.poll()) {
                HpaKey key = item.get().key();
                if (sharding.claims().begin(key, item.get().takenAt())) {
                    syncs.computeIfAbsent(key, k -> new ArrayList<>()).add(new Sync(time.elapsed().toMillis(), id));
                    queue.done(key);
                    sharding.claims().end(key);
                } else {
                    refused++;
                    queue.skipped(key);
                }
            }
        }
    }

    @BeforeEach
    void start() {
        for (int i = 0; i < 60; i++) {
            keys.add(HpaKey.of(HpaKey.BUILTIN_GROUP, "shop", "hpa-" + i));
        }
    }

    private Replica join(String id) {
        return join(id, Duration.ZERO);
    }

    private Replica join(String id, Duration workersAfter) {
        Replica r = new Replica(id, workersAfter);
        replicas.put(id, r);
        return r;
    }

    private void run(Duration d) {
        for (long t = 0; t < d.toNanos(); t += TICK.toNanos()) {
            time.advance(TICK);
            replicas.values().forEach(Replica::tick);
        }
    }

    /** The closest two syncs of one HPA by two replicas (ms), over every HPA. */
    private long closestTwoWriters() {
        long closest = Long.MAX_VALUE;
        for (List<Sync> s : syncs.values()) {
            for (int i = 1; i < s.size(); i++) {
                if (!s.get(i).by().equals(s.get(i - 1).by())) {
                    closest = Math.min(closest, s.get(i).atMillis() - s.get(i - 1).atMillis());
                }
            }
        }
        return closest;
    }

    /** The longest time (ms) an HPA went unsynced from {@code fromMillis} to now, over every HPA. */
    private long longestGapSince(long fromMillis) {
        long now = time.elapsed().toMillis();
        long longest = 0;
        for (HpaKey key : keys) {
            long last = fromMillis;
            for (Sync s : syncs.getOrDefault(key, List.of())) {
                if (s.atMillis() >= fromMillis) {
                    longest = Math.max(longest, s.atMillis() - last);
                }
                last = Math.max(last, s.atMillis());
            }
            longest = Math.max(longest, now - last);
        }
        return longest;
    }

    private void settle() {
        join("node-a");
        join("node-b");
        join("node-c");
        run(Duration.ofSeconds(45));
        assertThat(syncs.keySet()).as("every HPA synced in the first period").containsAll(keys);
    }

    @Test
    void aLeaveThenTheReplacementsJoinWithinAPeriodNeitherSyncsAnHpaTwiceWithinAPeriodNorLeavesOneUnsynced() {
        settle();
        long leave = time.elapsed().toMillis();
        List<HpaKey> ofA = keys.stream().filter(k -> replicas.get("node-a").sharding.claims().owns(k)).toList();
        assertThat(ofA).isNotEmpty();
        Replica a = replicas.get("node-a");
        a.running = false; // its pod is deleted: the workers stop, then the Lease is released with its HPAs' dues
        a.sharding.close();
        replicas.remove("node-a");
        run(Duration.ofSeconds(1));
        join("node-d", Duration.ofSeconds(4)); // the replacement pod: its workers start once its informers synced
        run(Duration.ofSeconds(60));

        assertThat(closestTwoWriters()).as("two replicas' syncs of one HPA (ms)").isGreaterThanOrEqualTo(PERIOD.toMillis());
        assertThat(longestGapSince(leave - PERIOD.toMillis())).as("the longest an HPA went unsynced (ms)")
                .isLessThanOrEqualTo(LEASE.plus(PERIOD).plus(RETRY.multipliedBy(2)).toMillis());
        assertThat(ofA).allMatch(k -> syncs.get(k).stream().anyMatch(s -> s.atMillis() > leave && !s.by().equals("node-a")));
    }

    @Test
    void eachQueueHoldsOnlyItsOwnKeysAJoinersGainedKeysEnterAtTheirHandedDueAndTheLosersNeverSyncThemAgain() {
        settle();
        run(Duration.ofSeconds(15));
        for (Replica r : replicas.values()) {
            assertThat(keys).as(r.id + " queues exactly the keys it owns")
                    .allMatch(k -> r.queue.isTracked(k) == r.sharding.claims().owns(k));
        }
        Map<String, Integer> refusedBefore = new HashMap<>();
        replicas.forEach((id, r) -> refusedBefore.put(id, r.refused));
        run(PERIOD.multipliedBy(2));
        replicas.forEach((id, r) -> assertThat(r.refused).as(id + ": no pop of another's key in a steady period")
                .isEqualTo(refusedBefore.get(id)));

        long join = time.elapsed().toMillis();
        Replica d = join("node-d");
        run(Duration.ofSeconds(45));
        List<HpaKey> gained = keys.stream().filter(k -> d.sharding.claims().owns(k)).toList();
        assertThat(gained).as("about a quarter moved to the joiner").hasSizeBetween(5, 30);
        for (HpaKey key : gained) {
            List<Sync> s = syncs.get(key);
            int first = s.indexOf(s.stream().filter(x -> x.by().equals("node-d")).findFirst().orElseThrow());
            Sync before = s.get(first - 1);
            Replica loser = replicas.get(before.by());
            assertThat(s.get(first).atMillis() - before.atMillis()).as(key + ": synced here at the due its holder handed over")
                    .isBetween(PERIOD.toMillis(), PERIOD.plus(TICK).toMillis());
            assertThat(s.subList(first, s.size())).as(key + ": only the joiner syncs it since").allMatch(x -> x.by().equals("node-d"));
            assertThat(loser.lostAt.get(key)).as(key + " left its loser's queue").isBetween(join, before.atMillis() + PERIOD.toMillis());
            assertThat(loser.queue.isTracked(key)).isFalse();
        }
        assertThat(closestTwoWriters()).isGreaterThanOrEqualTo(PERIOD.toMillis());
    }

    @Test
    void aKilledReplicasHpasAreSyncedByTheOthersWithinTheLeaseAndAPeriod() {
        settle();
        Replica c = replicas.get("node-c");
        List<HpaKey> ofC = keys.stream().filter(k -> c.sharding.claims().owns(k)).toList();
        assertThat(ofC).isNotEmpty();
        c.running = false; // kill -9: no release
        long kill = time.elapsed().toMillis();
        run(Duration.ofSeconds(45));

        for (HpaKey key : ofC) {
            long first = syncs.get(key).stream().filter(s -> s.atMillis() > kill).mapToLong(Sync::atMillis).min().orElseThrow();
            assertThat(first - kill).as(key + " taken over (ms after the kill)").isLessThanOrEqualTo(LEASE.plus(PERIOD).toMillis());
        }
        assertThat(closestTwoWriters()).isGreaterThanOrEqualTo(PERIOD.toMillis());
    }

    /** A member's Lease written by hand: holding {@code view}, renewed at {@code renewedAt}, with this handover text. */
    private void lease(String id, int seconds, List<String> view, Instant renewedAt, String handover) throws ApiException {
        MemberLease before = leases.read(id);
        leases.write(new MemberLease(id, seconds, renewedAt, new TreeSet<>(view), before == null ? null : before.resourceVersion(),
                handover));
    }

    /** When the key is due on this replica's queue, in ms since the test's start. */
    private long dueMillis(Replica r, HpaKey key) {
        return Duration.ofNanos(r.queue.dueAt(key).orElseThrow()).toMillis();
    }

    @Test
    void aHandoverCappedOrUnreadableMakesTheGainedHpasWaitAPeriodAfterTheReleaseNeverLess() throws ApiException {
        // x released every HPA at 1 s with a capped list that names none of them; y's annotation is garbage
        lease("x", 1, List.of(), time.instant().plusSeconds(1), "1;" + time.instant().plusSeconds(1).toEpochMilli() + ";1;");
        lease("y", 1, List.of(), time.instant().plusSeconds(2), "1;oops;0;zz:12");
        Replica b = join("node-b");
        time.advance(Duration.ofSeconds(3));
        b.tick();
        time.advance(RETRY);
        b.tick();
        assertThat(keys).allMatch(k -> b.sharding.claims().owns(k));
        // the garbled Lease renewed at 2 s: due a period after that, never earlier
        assertThat(keys).allMatch(k -> dueMillis(b, k) == Duration.ofSeconds(2).plus(PERIOD).toMillis());
    }

    @Test
    void aReleaseOfMoreHpasThanTheCapPublishesTheCapAndSaysSo() throws ApiException {
        for (int i = 60; i < Handover.MAX_ENTRIES + 50; i++) {
            keys.add(HpaKey.of(HpaKey.BUILTIN_GROUP, "shop", "hpa-" + i));
        }
        Replica a = join("node-a");
        a.tick();
        long due = time.instant().plusSeconds(9).toEpochMilli();
        keys.forEach(k -> a.queue.handOver(k, due, Long.MIN_VALUE)); // each with a due of its own here
        a.sharding.close();

        String text = leases.read("node-a").handover();
        Handover published = Handover.parse(text);
        assertThat(published.capped()).isTrue();
        assertThat(published.dues()).hasSize(Handover.MAX_ENTRIES).containsValue(due);
        assertThat(text.length()).isLessThan(256 * 1024 - 1024);
    }

    @Test
    void hostileHandoverTextsAreUnreadableNotBelieved() {
        assertThat(Handover.parse(null)).isNull();
        for (String text : List.of("1;5;0", "2;5;0;", "1;5;2;", "1;-5;0;", "1;5;0;a:", "1;5;0;:1", "1;5;0;123456789:1", "1;5;0;a:99999999999",
                "1;5;0;a:" + Long.MIN_VALUE, "1;" + Long.MAX_VALUE + ";0;a:1", "x".repeat(300_000))) {
            assertThat(Handover.parse(text)).as(text.length() > 40 ? "a long text" : text).isSameAs(Handover.GARBLED);
        }
        Handover h = Handover.parse("1;1000;0;ff:500,ff:700,1:-200");
        assertThat(h.dues()).containsEntry(0xff, 1700L).containsEntry(1, 800L);
    }
}
