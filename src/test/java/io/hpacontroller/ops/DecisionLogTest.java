package io.hpacontroller.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.hpacontroller.core.HpaKey;
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
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static io.hpacontroller.testing.Keys.key;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WARN line of a failed sync names the reason of its condition; only an exception the core caught reads as an internal
 * error. Issue 35: an HPA refused at every sync logs its error once at WARN, not once per sync.
 */
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
            public Controllers controllers(HpaKey hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
                return new Controllers(2, List.of("default/other", hpaKey.toString()));
            }

            @Override
            public void forget(HpaKey hpaKey) {
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

    private static SyncReport sync(String hpa, ErrorKind error, String message) {
        DecisionTrace trace = new DecisionTrace(key(hpa), 0, 3, 1, 10, List.of(), -1, null, -1, null, null, List.of(), null, 3, Action.NONE, false, "",
                error, error == ErrorKind.NONE ? null : "AmbiguousSelector", message);
        return new SyncReport(key(hpa), new ReconcileOutcome(trace, null, false, List.of()), 0, 0, 0, 0, 0);
    }

    @Test
    void aRepeatedErrorIsLoggedAtWarnOnlyWhenItStartsOrChanges() {
        Logger log = (Logger) LoggerFactory.getLogger("io.hpacontroller.decisions");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        Level level = log.getLevel();
        log.setLevel(Level.INFO);
        try {
            DecisionLog decisions = new DecisionLog();
            String ambiguous = "pods by selector app=web are controlled by multiple HPAs: [ns/a, ns/b, ns/c] and more";
            for (int i = 0; i < 5; i++) {
                decisions.onSync(sync("ns/a", ErrorKind.INTERNAL, ambiguous));
                decisions.onSync(sync("ns/b", ErrorKind.INTERNAL, ambiguous));
            }
            decisions.onSync(sync("ns/a", ErrorKind.INTERNAL, "pods by selector app=web are controlled by multiple HPAs: [ns/a, ns/b]"));
            decisions.onSync(sync("ns/a", ErrorKind.NONE, null));
            decisions.onSync(sync("ns/a", ErrorKind.INTERNAL, ambiguous));
            decisions.onSync(new SyncReport(key("ns/b"), null, 0, 0, 0, 0, 0)); // deleted
            decisions.onSync(sync("ns/b", ErrorKind.INTERNAL, ambiguous)); // created again

            assertThat(lines.list).filteredOn(e -> e.getLevel() == Level.WARN).extracting(ILoggingEvent::getFormattedMessage)
                    .as("each HPA's first failure, a changed error, a failure after a sync without, a failure of a new HPA of that name")
                    .containsExactly(
                            "sync of ns/a ended with AmbiguousSelector: " + ambiguous,
                            "sync of ns/b ended with AmbiguousSelector: " + ambiguous,
                            "sync of ns/a ended with AmbiguousSelector: pods by selector app=web are controlled by multiple HPAs: [ns/a, ns/b]",
                            "sync of ns/a ended with AmbiguousSelector: " + ambiguous,
                            "sync of ns/b ended with AmbiguousSelector: " + ambiguous);
        } finally {
            log.setLevel(level);
            log.detachAppender(lines);
        }
    }
}
