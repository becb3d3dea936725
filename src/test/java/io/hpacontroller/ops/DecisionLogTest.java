package io.hpacontroller.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 35: an HPA refused at every sync logs its error once at WARN, not once per sync. */
class DecisionLogTest {

    private static SyncReport sync(String hpa, ErrorKind error, String message) {
        DecisionTrace trace = new DecisionTrace(hpa, 0, 3, 1, 10, List.of(), -1, null, -1, null, null, List.of(), null, 3, Action.NONE, false, "",
                error, error == ErrorKind.NONE ? null : "AmbiguousSelector", message);
        return new SyncReport(hpa, new ReconcileOutcome(trace, null, false, List.of()), 0, 0, 0, 0, 0);
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
            decisions.onSync(new SyncReport("ns/b", null, 0, 0, 0, 0, 0)); // deleted
            decisions.onSync(sync("ns/b", ErrorKind.INTERNAL, ambiguous)); // created again

            assertThat(lines.list).filteredOn(e -> e.getLevel() == Level.WARN).extracting(ILoggingEvent::getFormattedMessage)
                    .as("each HPA's first failure, a changed error, a failure after a sync without, a failure of a new HPA of that name")
                    .containsExactly(
                            "sync of ns/a failed (internal error): " + ambiguous,
                            "sync of ns/b failed (internal error): " + ambiguous,
                            "sync of ns/a failed (internal error): pods by selector app=web are controlled by multiple HPAs: [ns/a, ns/b]",
                            "sync of ns/a failed (internal error): " + ambiguous,
                            "sync of ns/b failed (internal error): " + ambiguous);
        } finally {
            log.setLevel(level);
            log.detachAppender(lines);
        }
    }
}
