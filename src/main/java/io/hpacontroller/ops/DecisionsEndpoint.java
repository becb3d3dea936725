package io.hpacontroller.ops;

import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.hpa.HpaApi;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * {@code GET /decisions/NAMESPACE/NAME} on the metrics port ({@code /decisions/autoscaling.hpa-controller.io/NAMESPACE/NAME}
 * for a mirror HPA, its key): the HPA's last decision traces, the flags and
 * the HPA's remembered history, as {@link HpaDecisions} JSON. 404 (with the same body, empty) when this
 * instance has neither synced nor remembered the HPA; 400 for another path shape; 405 for another method.
 * Every path of the metrics port but {@code /metrics} comes here. With {@code --sharding} the answer names the replica
 * that owns the HPA ({@code owner}), and a 404 for an HPA another replica owns says which.
 */
final class DecisionsEndpoint implements EndpointServer.Handler {

    static final String PREFIX = "/decisions/";

    private final RecentDecisions recent;
    private final HistoryStore histories;
    private final HpaDecisions.Flags flags;
    private final BooleanSupplier leading;
    /** The replica owning an HPA (null when none claims it), or null without {@code --sharding}. */
    private final Function<HpaKey, String> owner;

    DecisionsEndpoint(RecentDecisions recent, HistoryStore histories, ControllerOptions options, BooleanSupplier leading,
                      Function<HpaKey, String> owner) {
        this.recent = recent;
        this.histories = histories;
        this.flags = HpaDecisions.Flags.of(options.decisions(), options.syncPeriod(),
                options.apis().stream().map(HpaApi::apiVersion).sorted().toList());
        this.leading = leading;
        this.owner = owner;
    }

    @Override
    public EndpointServer.Response handle(EndpointServer.Request request) {
        String path = request.path();
        if (!path.startsWith(PREFIX)) {
            return EndpointServer.Response.text(404, "not found: the metrics are at /metrics, the decisions of an HPA at " + PREFIX + "NAMESPACE/NAME\n");
        }
        if (!request.isGetOrHead()) {
            return EndpointServer.Response.onlyGet();
        }
        String text = HpaApi.parseKey(path.substring(PREFIX.length()));
        if (text == null) {
            return EndpointServer.Response.text(400, "expected " + PREFIX + "NAMESPACE/NAME, or " + PREFIX + HpaApi.MIRROR.group()
                    + "/NAMESPACE/NAME for a mirror HPA, got " + path + "\n");
        }
        HpaKey key = HpaKey.parse(text);
        List<DecisionTrace> decisions = recent.of(key);
        HistorySnapshot history = histories.snapshot(key);
        boolean found = !decisions.isEmpty() || history.seen();
        String ownedBy = owner == null ? null : owner.apply(key);
        HpaDecisions body = new HpaDecisions(text, leading.getAsBoolean(), flags, history, decisions, found ? null : notFound(key, ownedBy), ownedBy);
        return EndpointServer.Response.of(found ? 200 : 404, "application/json; charset=utf-8", DecisionsJson.write(body));
    }

    /** Why there are no decisions for this key: the HPA of the other API that this instance knows, else it has not synced it. */
    private String notFound(HpaKey key, String ownedBy) {
        String namespace = key.namespace();
        String name = key.name();
        for (HpaApi other : HpaApi.values()) {
            HpaKey otherKey = HpaKey.of(other.group(), namespace, name);
            if (!otherKey.equals(key) && (!recent.of(otherKey).isEmpty() || histories.snapshot(otherKey).seen())) {
                return "no decisions for the " + HpaApi.ofKey(key).apiVersion() + " HPA " + namespace + "/" + name + "; those of the "
                        + other.apiVersion() + " HPA of that name are at " + PREFIX + otherKey;
            }
        }
        String why = owner == null ? (leading.getAsBoolean() ? "" : " (a standby syncs nothing)")
                : ownedBy == null ? " (no replica claims it now: a handover is under way)" : " (the replica " + ownedBy + " owns it)";
        return "this instance has not synced " + key + why
                + (HpaApi.ofKey(key) == HpaApi.MIRROR ? "" : "; a mirror HPA's decisions are at " + PREFIX + HpaApi.MIRROR.key(namespace, name));
    }
}
