package io.hpacontroller.hpa;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.controller.LiveTestBase;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;

import static io.hpacontroller.testing.Keys.key;
import static io.hpacontroller.controller.LiveFixtures.cpuUtilization;
import static io.hpacontroller.controller.LiveFixtures.hpa;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A sync that comes before the informer holds the controller's own last status write (an HPA's first slot
 * right after its immediate sync) decides from the API's HPA, not from the cached one without that status;
 * once the cache holds the written version, syncs read the cache again. A status another writer wrote since ours is
 * told apart from ours; a refused write is logged and counted.
 */
class HpaStatusUpdaterTest extends LiveTestBase {

    private final ManualTime clock = new ManualTime(Instant.parse("2026-03-01T12:00:00Z"));
    private KubernetesClient kube;
    private HpaStatusUpdater statuses;

    @BeforeEach
    void anUpdater() {
        kube = cluster.newClient();
        statuses = new HpaStatusUpdater(new KubeApi(kube, Duration.ofSeconds(5)), WriteGate.alwaysOpen(), clock);
    }

    @AfterEach
    void closeClient() {
        kube.close();
    }

    private long hpaReads() {
        return cluster.count("GET", p -> p.endsWith("/horizontalpodautoscalers/web"));
    }

    @Test
    void untilTheCacheHoldsOurStatusWriteTheHpaIsReadFromTheApi() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        HorizontalPodAutoscaler cached = readHpa("web"); // what the informer holds: no status yet
        assertThat(statuses.current(cached)).as("nothing written: the cache is current").isSameAs(cached);

        statuses.write(cached, new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        long reads = hpaReads();
        HorizontalPodAutoscaler decidedFrom = statuses.current(cached);
        assertThat(decidedFrom.getStatus()).as("the status just written, not the cache's none").isNotNull();
        assertThat(decidedFrom.getStatus().getDesiredReplicas()).isEqualTo(4);
        assertThat(hpaReads()).isEqualTo(reads + 1);

        HorizontalPodAutoscaler caughtUp = readHpa("web"); // the informer's next event: the written version
        reads = hpaReads();
        assertThat(statuses.current(caughtUp)).isSameAs(caughtUp);
        assertThat(statuses.current(caughtUp)).isSameAs(caughtUp);
        assertThat(hpaReads()).as("no read once the cache holds the write").isEqualTo(reads);
    }

    @Test
    void aForgottenHpaIsReadFromTheCache() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        HorizontalPodAutoscaler cached = readHpa("web");
        statuses.write(cached, new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        statuses.forget(key(NS + "/web"));
        assertThat(statuses.current(cached)).isSameAs(cached);
    }

    /** Someone else (the built-in controller) writes the HPA's status. */
    private void writtenByAnother(int desiredReplicas) {
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").editStatus(h -> {
            h.getStatus().setDesiredReplicas(desiredReplicas);
            return h;
        });
    }

    @Test
    void aStatusOtherThanOurLastWriteIsAnotherWriterAndTheConflictEndsAfterAQuietPeriod() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        HorizontalPodAutoscaler cached = readHpa("web");
        assertThat(statuses.otherWriter(cached)).as("nothing written: nothing to compare").isEqualTo(OtherStatusWriter.UNKNOWN);

        statuses.write(cached, new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        assertThat(statuses.otherWriter(cached)).as("the cache behind our own write is no other writer").isEqualTo(OtherStatusWriter.UNKNOWN);
        HorizontalPodAutoscaler ours = readHpa("web");
        assertThat(statuses.otherWriter(statuses.current(ours))).isEqualTo(OtherStatusWriter.UNKNOWN);

        clock.advance(Duration.ofSeconds(15));
        writtenByAnother(2);
        OtherStatusWriter seen = statuses.otherWriter(statuses.current(readHpa("web")));
        assertThat(seen.message()).startsWith("another writer wrote this HPA's status at 2026-03-01T12:00:15Z, between two syncs of hpa-controller: "
                + "two controllers reconcile this HPA and undo each other's status and scale; turn off the built-in HPA controller");
        assertThat(statuses.conflicting()).containsExactly(key(NS + "/web"));

        statuses.write(readHpa("web"), new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        clock.advance(Duration.ofMinutes(9));
        assertThat(statuses.otherWriter(readHpa("web"))).as("within the quiet period after the last other write").isEqualTo(seen);
        clock.advance(Duration.ofMinutes(1));
        assertThat(statuses.otherWriter(readHpa("web"))).isEqualTo(OtherStatusWriter.NONE);
        assertThat(statuses.conflicting()).isEmpty();
    }

    @Test
    void aSyncThatFoundTheStatusAsItWouldWriteItWatchesItToo() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        statuses.write(readHpa("web"), new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        writtenByAnother(3);
        HorizontalPodAutoscaler other = statuses.current(readHpa("web"));
        assertThat(statuses.otherWriter(other).message()).isNotNull();
        statuses.forget(key(NS + "/web")); // a restart: nothing known
        assertThat(statuses.otherWriter(other)).isEqualTo(OtherStatusWriter.UNKNOWN);
        statuses.unchanged(other); // what this controller would write now
        clock.advance(Duration.ofMinutes(10));
        assertThat(statuses.otherWriter(readHpa("web"))).isEqualTo(OtherStatusWriter.NONE);
    }

    @Test
    void aRefusedStatusWriteIsLoggedWithTheServersMessageAndCountedAndForgetsOurLastWrite() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        statuses.write(readHpa("web"), new HorizontalPodAutoscalerStatusBuilder().withCurrentReplicas(2).withDesiredReplicas(4).build());
        Logger log = (Logger) LoggerFactory.getLogger(HpaStatusUpdater.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        try {
            cluster.fail("PUT", "/horizontalpodautoscalers/web/status$", 422, 1);
            assertThatThrownBy(() -> statuses.write(readHpa("web"), new HorizontalPodAutoscalerStatusBuilder().withDesiredReplicas(5).build()))
                    .isInstanceOf(ApiException.class).hasMessage("injected fault");
        } finally {
            log.detachAppender(lines);
        }
        assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("status of demo/web not written: injected fault");
        assertThat(statuses.failures(HpaApi.BUILTIN)).isEqualTo(1);
        assertThat(statuses.failures(HpaApi.MIRROR)).isZero();
        writtenByAnother(3); // or our refused write after all: unknown, not another writer
        assertThat(statuses.otherWriter(readHpa("web"))).isEqualTo(OtherStatusWriter.UNKNOWN);
    }

    /** An HPA deleted while it was synced: its status write meets 404; nothing was refused, so no WARN line and no count. */
    @Test
    void aStatusWriteOfAnHpaDeletedMeanwhileIsNoFailure() throws Exception {
        create(hpa(NS, "web", "apps/v1", "Deployment", "web", 1, 10, cpuUtilization(50)));
        HorizontalPodAutoscaler read = readHpa("web");
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(NS).withName("web").delete();
        assertThatThrownBy(() -> statuses.write(read, new HorizontalPodAutoscalerStatusBuilder().withDesiredReplicas(5).build()))
                .isInstanceOf(ApiException.NotFound.class);
        assertThat(statuses.failures(HpaApi.BUILTIN)).isZero();
    }
}
