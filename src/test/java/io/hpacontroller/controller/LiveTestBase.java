package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.testing.ManualTime;
import io.hpacontroller.testing.MockCluster;
import io.hpacontroller.testing.Waits;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A mock cluster per test, and a live controller started against it on demand: with real time and
 * fast syncs, or at the production ratio (kube-controller-manager's 15 s sync period) on a manual clock.
 */
public abstract class LiveTestBase {

    protected static final String NS = "demo";
    protected static final Duration PRODUCTION_PERIOD = Duration.ofSeconds(15);
    protected MockCluster cluster;
    protected KubernetesClient client;
    protected HorizontalController controller;
    /** Every sync the controller of {@link #startController} made, in order. */
    protected final List<SyncReport> syncs = new CopyOnWriteArrayList<>();
    protected final ManualTime time = new ManualTime(Instant.parse("2026-03-01T12:00:00Z"));

    /** A sync as a test saw it: the second of manual time it happened at, and its outcome. */
    protected record Sync(long second, ReconcileOutcome outcome) {
    }

    @BeforeEach
    protected void startCluster() {
        // a status or field the controller has not written yet reads as null: in a wait, that is "not yet"
        Awaitility.ignoreExceptionByDefault(NullPointerException.class);
        cluster = MockCluster.start();
        client = cluster.client();
    }

    @AfterEach
    protected void stopAll() {
        if (controller != null) {
            controller.close();
        }
        cluster.close();
        Awaitility.reset();
        if (controller != null) {
            assertThat(controller.conflictingWriters()).as("another writer of the status, though the controller ran alone").isEmpty();
        }
    }

    /**
     * Starts the controller once the fake workload controller has made every deployment's pods: a first
     * sync that saw half of them would decide from a cluster the test did not mean to describe.
     */
    protected HorizontalController startController(ControllerOptions options) throws InterruptedException {
        cluster.workloads().awaitSettled(NS);
        controller = new HorizontalController(cluster.newClient(), options, Clock.systemUTC(), WriteGate.alwaysOpen());
        controller.addListener(syncs::add);
        controller.start(Waits.STATE);
        return controller;
    }

    /**
     * Waits until the controller has synced the HPA {@code count} more times: what a test asserts did
     * not happen meanwhile, did not happen while the controller was running.
     */
    protected void awaitMoreSyncs(String hpa, int count) {
        long from = syncsOf(hpa);
        await().atMost(Waits.STATE).until(() -> syncsOf(hpa) >= from + count);
    }

    protected long syncsOf(String hpa) {
        return syncs.stream().filter(r -> r.key().toString().equals(NS + "/" + hpa) && r.outcome() != null).count();
    }

    /**
     * A controller with the production sync period on the manual clock, its informers synced, no workers;
     * started as {@link #startController} starts one.
     */
    protected HorizontalController controllerAtProductionRatio() throws InterruptedException {
        cluster.workloads().awaitSettled(NS);
        ControllerOptions options = new ControllerOptions(ControllerConfig.defaults(), PRODUCTION_PERIOD, 2, List.of(), Duration.ofSeconds(5));
        controller = new HorizontalController(cluster.newClient(), options, time, time, WriteGate.alwaysOpen());
        controller.startInformers();
        assertThat(controller.awaitSynced(Waits.STATE)).isTrue();
        return controller;
    }

    /**
     * Runs the controller for this many seconds of manual time, one second at a time: every second it
     * syncs whatever is due, so a second without a sync is one in which the controller looked and found
     * nothing to do.
     */
    protected List<Sync> run(int seconds) {
        List<Sync> syncs = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            long second = time.elapsed().toSeconds();
            List<SyncReport> due = controller.syncDue();
            due.forEach(r -> syncs.add(new Sync(second, r.outcome())));
            if (due.stream().anyMatch(r -> r.outcome() != null && r.outcome().rescaled())) {
                // manual time runs far faster than the fake workload controller: let it finish the rescale, as it
                // would long before the next sync a period later, so that its status write cannot race that sync
                cluster.workloads().awaitSettled(NS);
            }
            time.advance(Duration.ofSeconds(1));
        }
        return syncs;
    }

    /**
     * The second of manual time (counted as {@link #run} counts them) at which the HPA's first slot
     * after second 0 is synced: its phase ({@link PhasedCadence}), rounded up to the second.
     */
    protected long firstSlotSecond(String hpaName) {
        return firstSlotSecond(hpaName, PRODUCTION_PERIOD);
    }

    /** The same for an HPA synced at its own period (its sync-period control). */
    protected long firstSlotSecond(String hpaName, Duration period) {
        PhasedCadence cadence = new PhasedCadence(period, time, time);
        long slot = cadence.slotAtOrBefore(key(NS + "/" + hpaName), 0) + period.toNanos();
        return (slot + 999_999_999L) / 1_000_000_000L;
    }

    protected int replicas(String deployment) {
        return client.apps().deployments().inNamespace(NS).withName(deployment).get().getSpec().getReplicas();
    }

    protected HorizontalPodAutoscaler readHpa(String name) {
        return client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName(name).get();
    }

    protected void create(HorizontalPodAutoscaler hpa) {
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).resource(hpa).create();
    }

    protected static String condition(HorizontalPodAutoscaler hpa, String type) {
        if (hpa == null || hpa.getStatus() == null) {
            return null;
        }
        for (HorizontalPodAutoscalerCondition c : hpa.getStatus().getConditions()) {
            if (c.getType().equals(type)) {
                return c.getStatus() + "/" + c.getReason();
            }
        }
        return null;
    }

    protected List<Event> events(String reason) {
        return client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> reason.equals(e.getReason())).collect(Collectors.toList());
    }
}
