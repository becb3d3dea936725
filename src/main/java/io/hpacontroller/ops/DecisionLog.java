package io.hpacontroller.ops;

import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.core.trace.ReconcileOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * One log line per scale decision: the HPA, old and new replicas, the metric that drove it and what
 * limited it. Failed syncs are logged at WARN with the reason of the condition or event they set (AmbiguousSelector,
 * FailedGetResourceMetric, ...: a configuration problem reads as one), and only a failure with no such reason (an
 * exception the core caught) as an internal error.
 */
public final class DecisionLog implements HorizontalController.SyncListener {

    private static final Logger LOG = LoggerFactory.getLogger("io.hpacontroller.decisions");

    @Override
    public void onSync(SyncReport report) {
        ReconcileOutcome o = report.outcome();
        if (o == null) {
            LOG.info("HPA {} was deleted; its history is dropped", report.key());
            return;
        }
        if (o.rescaled()) {
            String metric = o.metric() == null ? "none" : o.metric();
            String limit = o.limitReason() == null ? "nothing" : o.limitReason();
            LOG.atInfo().addKeyValue("hpa", o.key()).addKeyValue("oldReplicas", o.currentReplicas())
                    .addKeyValue("newReplicas", o.desiredReplicas()).addKeyValue("metric", metric)
                    .addKeyValue("reason", o.rescaleReason()).addKeyValue("limitedBy", limit)
                    .log("scaled {} from {} to {} replicas; reason: {}; metric: {}; limited by: {}", o.key(), o.currentReplicas(),
                            o.desiredReplicas(), o.rescaleReason(), metric, limit);
        } else if (o.error() != ReconcileOutcome.ErrorKind.NONE && o.trace().errorReason() != null) {
            LOG.atWarn().addKeyValue("hpa", o.key()).addKeyValue("error", o.error().label()).addKeyValue("reason", o.trace().errorReason())
                    .log("sync of {} ended with {}: {}", o.key(), o.trace().errorReason(), o.errorMessage());
        } else if (o.error() != ReconcileOutcome.ErrorKind.NONE) {
            LOG.atWarn().addKeyValue("hpa", o.key()).addKeyValue("error", o.error().label())
                    .log("sync of {} failed ({} error): {}", o.key(), o.error().label(), o.errorMessage());
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("{} stays at {} replicas (proposed {}, limited by {})", o.key(), o.currentReplicas(), o.proposedReplicas(),
                    o.limitReason() == null ? "nothing" : o.limitReason());
        }
    }
}
