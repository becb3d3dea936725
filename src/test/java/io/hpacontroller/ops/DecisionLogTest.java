package io.hpacontroller.ops;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Pods;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The WARN line of a failed sync names the reason of its condition; only an exception the core caught reads as an internal error. */
class DecisionLogTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    private final FakeCluster cluster = new FakeCluster();
    private final Logger log = (Logger) LoggerFactory.getLogger("io.hpacontroller.decisions");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void threePodsAndALog() {
        cluster.scale = new ScaleTarget(3, 3, "app=web", "1");
        cluster.pods = Pods.ready(3, 1000, NOW.toEpochMilli());
        cluster.podUsage = Pods.cpuUsage(NOW.toEpochMilli(), 1000, 1000, 1000);
        lines.start();
        log.addAppender(lines);
    }

    @AfterEach
    void detach() {
        log.detachAppender(lines);
    }

    private String logged(SelectorOwnership ownership) {
        ReconcileOutcome o = new Reconciler(ControllerConfig.defaults(), Ports.of(cluster, ownership), new HistoryStore(),
                Clock.fixed(NOW, ZoneOffset.UTC)).reconcile(Specs.hpa(1, 10, Specs.cpuUtilization(50)));
        new DecisionLog().onSync(new SyncReport(o.key(), o, 0, 0, 0, 0, 0));
        assertThat(lines.list).hasSize(1);
        return lines.list.get(0).getFormattedMessage();
    }

    @Test
    void noMetricsApiIsLoggedWithItsReason() {
        cluster.failingMetrics.add("cpu");
        assertThat(logged(SelectorOwnership.NONE)).startsWith("sync of default/web ended with FailedGetResourceMetric: ")
                .contains("unable to get metrics for resource cpu").doesNotContain("internal error");
    }

    @Test
    void anAmbiguousSelectorIsLoggedWithItsReason() {
        SelectorOwnership shared = new SelectorOwnership() {
            @Override
            public List<String> controllers(String hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
                return List.of("default/other", hpaKey);
            }

            @Override
            public void forget(String hpaKey) {
            }
        };
        assertThat(logged(shared)).startsWith("sync of default/web ended with AmbiguousSelector: ")
                .endsWith("pods by selector app=web are controlled by multiple HPAs: [default/other, default/web]");
    }

    @Test
    void aRealInternalErrorStillReadsAsOne() {
        cluster.podListBug = new IllegalStateException("informer cache is closed");
        assertThat(logged(SelectorOwnership.NONE)).startsWith("sync of default/web failed (internal error): internal error while reconciling default/web")
                .contains("informer cache is closed");
    }
}
