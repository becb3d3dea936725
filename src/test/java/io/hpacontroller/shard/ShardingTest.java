package io.hpacontroller.shard;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.LiveFixtures;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.lease.LeaseSettings;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.hpacontroller.core.HpaKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Sharding's loop on Leases of a CRUD API server (the fabric8 mock), stepped by hand on a manual clock. */
class ShardingTest {

    private final AtomicLong now = new AtomicLong();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private final List<HpaKey> keys = new ArrayList<>();

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
        for (int i = 0; i < 90; i++) {
            keys.add(HpaKey.of(HpaKey.BUILTIN_GROUP, "shop", "hpa-" + i));
        }
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private Sharding replica(String identity) {
        return new Sharding(new KubeApi(client, Duration.ofSeconds(5)), settings(identity), Clock.systemUTC(), now::get);
    }

    private static LeaseSettings settings(String identity) {
        return new LeaseSettings("hpa-controller", "hpa-controller", identity, Duration.ofSeconds(15), Duration.ofSeconds(10),
                Duration.ofSeconds(2));
    }

    private void period(List<Sharding> replicas) {
        now.addAndGet(TimeUnit.SECONDS.toNanos(2));
        replicas.forEach(Sharding::step);
        for (HpaKey key : keys) {
            assertThat(replicas.stream().filter(r -> r.claims().owns(key)).count()).as(key.toString()).isLessThanOrEqualTo(1);
        }
    }

    @Test
    void replicasShareTheHpasOnTheirLeasesAndTakeOverAGoneOnesAfterItsLeaseExpired() {
        Sharding a = replica("node_1");
        Sharding b = replica("node_2");
        Sharding c = replica("node_3");
        List<Sharding> all = List.of(a, b, c);
        for (int i = 0; i < 3; i++) {
            period(all);
        }
        assertThat(keys).allMatch(k -> all.stream().filter(r -> r.claims().owns(k)).count() == 1);
        assertThat(all).allMatch(r -> r.holdsFreshLease() && r.members() == 3);
        Lease lease = client.leases().inNamespace("hpa-controller").withName("hpa-controller-shard-node-1").get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("node_1");
        assertThat(lease.getMetadata().getLabels()).containsEntry(MemberLease.MEMBER_LABEL, "hpa-controller");
        assertThat(lease.getMetadata().getAnnotations()).containsEntry(MemberLease.VIEW_ANNOTATION, "node_1,node_2,node_3");
        List<HpaKey> ofC = keys.stream().filter(k -> c.claims().owns(k)).toList();
        long handovers = a.handovers();
        assertThat(ofC).isNotEmpty();

        // c stops renewing (killed): its HPAs stay unsynced while its Lease may still be live, then a and b take them
        List<Sharding> left = List.of(a, b);
        // c renewed last at 6 s; a and b first saw that renewal at 8 s: they count its Lease live until 23 s
        for (int i = 0; i < 8; i++) {
            period(left);
            assertThat(ofC).noneMatch(k -> a.claims().owns(k) || b.claims().owns(k));
        }
        period(left); // 24 s: gone; both publish their new view and read the other's at once

        assertThat(keys).allMatch(k -> a.claims().owns(k) != b.claims().owns(k));
        assertThat(a.handovers()).isEqualTo(handovers + 1);
    }

    @Test
    void aReplicaThatCannotRenewClaimsNothingBeforeItsLeaseCouldExpire() {
        Sharding a = replica("a");
        period(List.of(a));
        period(List.of(a));
        assertThat(a.claims().ownedOf(keys)).isEqualTo(keys.size());
        client.leases().inNamespace("hpa-controller").withName("hpa-controller-shard-a").delete(); // its renewals fail (404)
        now.addAndGet(TimeUnit.SECONDS.toNanos(10));
        a.step();
        assertThat(a.holdsFreshLease()).isFalse();
        assertThat(a.claims().ownedOf(keys)).isZero();
    }

    @Test
    void writesRefusedAsStaleAreCountedByReason() throws ApiException {
        Sharding a = replica("a");
        WriteGate gate = WriteGate.whileLeading(a::holdsFreshLease, a.writeTimeout());
        PrometheusRegistry registry = new PrometheusRegistry();
        try (HorizontalController controller = new HorizontalController(client, LiveFixtures.fastOptions(), Clock.systemUTC(), gate)) {
            ShardMetrics.register(registry, a, controller, gate);
            period(List.of(a));
            gate.check(); // a fresh Lease: the write goes
            assertThat(refusedWrites(registry, "lease")).isZero();

            now.addAndGet(TimeUnit.SECONDS.toNanos(10)); // no renewal for the renew deadline: a sync still in flight writes nothing
            assertThatThrownBy(gate::check).isInstanceOf(ApiException.class).hasMessageContaining("fresh");
            assertThatThrownBy(gate::check).isInstanceOf(ApiException.class);
            gate.fenced(); // the kept history's write met a 409 (HistoryObjectsTest)
            assertThat(refusedWrites(registry, "lease")).isEqualTo(2);
            assertThat(refusedWrites(registry, "fenced")).isEqualTo(1);

            gate.close(); // shutdown: refused, but not as stale
            assertThatThrownBy(gate::check).isInstanceOf(ApiException.class);
            assertThat(refusedWrites(registry, "lease")).isEqualTo(2);
        }
    }

    private static double refusedWrites(PrometheusRegistry registry, String reason) {
        for (MetricSnapshot m : registry.scrape()) {
            if (m.getMetadata().getPrometheusName().equals("hpa_controller_shard_refused_writes")) {
                return ((CounterSnapshot) m).getDataPoints().stream().filter(d -> reason.equals(d.getLabels().get("reason")))
                        .findFirst().orElseThrow().getValue();
            }
        }
        throw new AssertionError("no hpa_controller_shard_refused_writes_total");
    }

    @Test
    void aReplicaResumedPastItsLeaseRenewsOnlyOnceTheSyncsItBeganBeforeHaveEnded() {
        // a 400 ms renew deadline: a lapse drains for at most 200 ms
        Sharding a = new Sharding(new KubeApi(client, Duration.ofSeconds(5)), new LeaseSettings("hpa-controller", "hpa-controller", "a",
                Duration.ofSeconds(15), Duration.ofMillis(400), Duration.ofMillis(100)), Clock.systemUTC(), now::get);
        a.step();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        a.step();
        assertThat(a.claims().ownedOf(keys)).isEqualTo(keys.size());
        HpaKey key = keys.get(0);
        assertThat(a.claims().begin(key, now.get())).isTrue(); // a sync under way when the process is stopped (SIGSTOP)
        String renewed = lease("a").getMetadata().getResourceVersion();
        List<Boolean> freshAtFlush = new ArrayList<>(); // whether its gate was open when its queued events were flushed
        a.flushBeforeRenewing(timeout -> freshAtFlush.add(a.holdsFreshLease()));
        now.addAndGet(TimeUnit.SECONDS.toNanos(30)); // resumed long after the others could count its Lease expired

        a.step();
        assertThat(a.holdsFreshLease()).as("its writes stay fenced while the sync begun before the stop runs").isFalse();
        assertThat(lease("a").getMetadata().getResourceVersion()).as("its Lease, not renewed meanwhile").isEqualTo(renewed);
        assertThat(a.claims().ownedOf(keys)).isZero();

        a.claims().end(key); // that sync met the closed gate and ended
        a.step();
        assertThat(a.holdsFreshLease()).isTrue();
        assertThat(freshAtFlush).as("its events queued before the lapse flushed before it renewed, at the shut gate").containsExactly(false);
        assertThat(a.claims().ownedOf(keys)).isEqualTo(keys.size());
    }

    @Test
    void aRenewalAnsweredAfterTheOthersCouldCountItsLeaseExpiredIsALapse() {
        Sharding a = replica("node_1");
        Sharding b = replica("node_2");
        SlowLeases slow = new SlowLeases(new KubeApi(client, Duration.ofSeconds(5)));
        Sharding c = new Sharding(slow, settings("node_3"), Clock.systemUTC(), now::get);
        List<Sharding> all = List.of(a, b, c);
        for (int i = 0; i < 3; i++) {
            period(all);
        }
        List<HpaKey> ofC = keys.stream().filter(k -> c.claims().owns(k)).toList();
        assertThat(ofC).isNotEmpty();
        slow.failing = 3; // c renewed last at 6 s (a and b saw it at 8 s); its renewals at 8, 10 and 12 s fail
        for (int i = 0; i < 3; i++) {
            period(all);
        }
        assertThat(c.holdsFreshLease()).isTrue();
        slow.duringNextWrite = () -> {
            // its renewal of 14 s lands at 23 s: meanwhile a and b count its Lease expired and take its HPAs
            for (int i = 0; i < 4; i++) {
                period(List.of(a, b));
            }
            now.addAndGet(TimeUnit.SECONDS.toNanos(1));
            a.step();
            b.step();
            assertThat(ofC).allMatch(k -> a.claims().owns(k) || b.claims().owns(k));
        };
        period(all); // asserts that no HPA has two owners: the late answer must not leave c its claims
        assertThat(c.holdsFreshLease()).isFalse();
        assertThat(c.claims().ownedOf(keys)).isZero();

        for (int i = 0; i < 2; i++) {
            period(all); // c joins again: it claims its HPAs once a and b drained and published a view with it
        }
        assertThat(keys).allMatch(k -> all.stream().filter(r -> r.claims().owns(k)).count() == 1);
        assertThat(c.claims().ownedOf(ofC)).isEqualTo(ofC.size());
    }

    /** A replica's Lease writes, failed or held up (the API server answers late) while the test runs the others. */
    private static final class SlowLeases extends ShardLeases {
        int failing;
        Runnable duringNextWrite;

        SlowLeases(KubeApi api) {
            super(api, "hpa-controller", "hpa-controller");
        }

        @Override
        MemberLease write(MemberLease lease) throws ApiException {
            if (failing > 0) {
                failing--;
                throw new ApiException("the server is overloaded");
            }
            Runnable meanwhile = duringNextWrite;
            duringNextWrite = null;
            if (meanwhile != null) {
                meanwhile.run();
            }
            return super.write(lease);
        }
    }

    private Lease lease(String identity) {
        return client.leases().inNamespace("hpa-controller").withName("hpa-controller-shard-" + identity).get();
    }

    @Test
    void closingReleasesTheLeaseSoTheOthersTakeOverAtOnce() {
        Sharding a = replica("a");
        Sharding b = replica("b");
        for (int i = 0; i < 3; i++) {
            period(List.of(a, b));
        }
        a.close();
        assertThat(a.claims().ownedOf(keys)).isZero();
        for (int i = 0; i < 3; i++) {
            period(List.of(b));
        }
        assertThat(b.claims().ownedOf(keys)).isEqualTo(keys.size());
    }
}
