package io.hpacontroller.explain;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.ApiDiscovery;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.ops.HpaDecisions;
import io.hpacontroller.pods.PodLister;
import io.hpacontroller.scale.ScaleSubresource;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * One read-only sync of one HPA: the scale, pods and metrics read from the cluster, the flags and the HPA's
 * history taken from the running controller when it answers, the core's {@link Reconciler} run on them with
 * ports that record every write instead of making it.
 */
public final class Explainer {

    /**
     * The answer to "why does this HPA (not) scale?".
     *
     * @param summary    the one-sentence answer
     * @param history    where the history came from, or why it is unknown and what that changes
     * @param flags      the controller flags the sync decided with
     * @param trace      the decision trace of the read-only sync
     * @param wouldWrite what the sync would have written (nothing was)
     */
    public record Explanation(String summary, History history, HpaDecisions.Flags flags, DecisionTrace trace, WouldWrite.Writes wouldWrite) {
    }

    /**
     * The HPA's remembered history (the recommendations behind the stabilization windows, the scale events
     * behind the policies), as explain used it.
     *
     * @param known        whether it came from the running controller
     * @param source       where it came from, null when unknown
     * @param unknown      why it is unknown, null when known
     * @param consequence  what an unknown history changes in this answer, null when known
     * @param lastDecision the controller's own last decision for this HPA, null when none was received
     */
    public record History(boolean known, String source, String unknown, String consequence, DecisionTrace lastDecision) {
    }

    private Explainer() {
    }

    public static final Duration API_TIMEOUT = Duration.ofSeconds(10);

    /**
     * @param client the client {@code api} was made from (the controller's history comes through its HTTP stack)
     * @param api    how the HPA's scale, pods and metrics are read
     * @param hpa    the HPA, as the core takes it (a mirror one with the mirror's apiVersion)
     */
    public static Explanation explain(KubernetesClient client, KubeApi api, HorizontalPodAutoscaler hpa, ControllerLink.Target target, Clock clock) {
        HpaKey key = HpaKey.of(hpa);
        ControllerLink.Answer answer = ControllerLink.fetch(client, api, target, key.toString()); // the wire form: the /decisions path
        HpaDecisions decisions = answer.decisions();
        HpaDecisions.Flags flags = decisions != null ? decisions.flags() : HpaDecisions.Flags.of(ControllerConfig.defaults(), Duration.ofSeconds(15), null);
        ControllerConfig config = flags.config();
        HistoryStore histories = new HistoryStore();
        if (answer.known()) {
            histories.restore(key, decisions.history());
        }
        ApiDiscovery discovery = new ApiDiscovery(api, clock);
        WouldWrite writes = new WouldWrite(new ScaleSubresource(api, discovery, WriteGate.alwaysOpen()));
        Reconciler reconciler = new Reconciler(config, new Ports(writes, new PodLister(api), new RestMetrics(api, discovery), writes, writes,
                HistoryWriter.NONE, SelectorOwnership.NONE), histories, clock);
        ReconcileOutcome outcome = reconciler.reconcile(hpa);

        List<DecisionTrace> last = decisions == null ? List.of() : decisions.decisions();
        DecisionTrace lastDecision = last.isEmpty() ? null : last.get(last.size() - 1);
        History history = answer.known()
                ? new History(true, answer.via(), null, null, lastDecision)
                : new History(false, answer.via(), answer.unknown(), consequence(config), lastDecision);
        String summary = DecisionSummary.of(outcome.trace());
        if (answer.notReconciled()) {
            summary = ControllerLink.LEFT_TO_BUILTIN + ": the controller reconciles the HPAs of " + String.join(", ", flags.hpaApis())
                    + " only; were it to reconcile this one, " + summary;
        }
        return new Explanation(summary, history, flags, outcome.trace(), writes.writes());
    }

    /** What deciding from an empty history changes, in this controller's terms. */
    private static String consequence(ControllerConfig config) {
        return "this answer starts from an empty history, as a controller that has just started would: the stabilization windows "
                + "hold only the current count, and no earlier scale counts against the behavior's policies. The running controller "
                + "may hold a scale-down for longer (up to the scale-down window: " + config.downscaleStabilization().toSeconds()
                + "s by the flag, or the HPA's behavior) and limit a scale-up more (the policies' periods)";
    }
}
