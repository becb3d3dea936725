package io.hpacontroller.ops;

import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One log line per scale decision: the HPA, old and new replicas, the metric that drove it and what
 * limited it. Failed syncs are logged with the reason of the condition or event they set (AmbiguousSelector,
 * FailedGetResourceMetric, ...: a configuration problem reads as one), and only a failure with no such reason (an
 * exception the core caught) as an internal error. A failed sync is logged at WARN when the HPA's error changed (it did
 * not fail at its previous sync, or failed otherwise), at DEBUG while it repeats: upstream logs every failed sync,
 * which with 2,000 HPAs refused at every sync is megabytes of the same lines a minute (issue 35). Kept per HPA: its
 * last error's hash, dropped when the HPA is deleted or syncs without error.
 */
public final class DecisionLog implements HorizontalController.SyncListener {

    private static final Logger LOG = LoggerFactory.getLogger("io.hpacontroller.decisions");

    /** The hash of each failing HPA's last error message. */
    private final Map<HpaKey, Integer> failing = new ConcurrentHashMap<>();

    @Override
    public void onSync(SyncReport report) {
        ReconcileOutcome o = report.outcome();
        if (o == null || o.error() == ReconcileOutcome.ErrorKind.NONE) {
            failing.remove(report.key());
        }
        if (o == null) {
            LOG.info("HPA {} was deleted; its history is dropped", report.key());
            return;
        }
        if (o.rescaled()) {
            String metric = o.metric() == null ? "none" : o.metric();
            String limit = o.limitReason() == null ? "nothing" : o.limitReason();
            LOG.atInfo().addKeyValue("hpa", o.key().toString()).addKeyValue("oldReplicas", o.currentReplicas())
                    .addKeyValue("newReplicas", o.desiredReplicas()).addKeyValue("metric", metric)
                    .addKeyValue("reason", o.rescaleReason()).addKeyValue("limitedBy", limit)
                    .log("scaled {} from {} to {} replicas; reason: {}; metric: {}; limited by: {}", o.key(), o.currentReplicas(),
                            o.desiredReplicas(), o.rescaleReason(), metric, limit);
        } else if (o.error() != ReconcileOutcome.ErrorKind.NONE) {
            int error = Objects.hash(o.error(), o.errorMessage());
            boolean repeated = Objects.equals(failing.put(report.key(), error), error);
            var line = (repeated ? LOG.atDebug() : LOG.atWarn()).addKeyValue("hpa", o.key().toString()).addKeyValue("error", o.error().label());
            String reason = o.trace().errorReason();
            if (reason != null) {
                line.addKeyValue("reason", reason).log("sync of {} ended with {}: {}", o.key(), reason, o.errorMessage());
            } else {
                line.log("sync of {} failed ({} error): {}", o.key(), o.error().label(), o.errorMessage());
            }
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("{} stays at {} replicas (proposed {}, limited by {})", o.key(), o.currentReplicas(), o.proposedReplicas(),
                    o.limitReason() == null ? "nothing" : o.limitReason());
        }
    }
}
