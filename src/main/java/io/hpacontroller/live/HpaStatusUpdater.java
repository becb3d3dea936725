package io.hpacontroller.live;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.DecisionTrace;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.reconcile.StatusWriter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes an HPA's status through the status subresource of its API (PUT, guarded by the resourceVersion of
 * the HPA as the informer saw it). When the HPA changed meanwhile (409), the latest one is read and the
 * status written once more on top of it; the informer's next event reconciles any spec change. Each write
 * passes the {@link WriteGate} right before it is sent. A mirror HPA's status also gets the printer
 * columns' fields and the decision of the sync that writes it ({@link MirrorHpaStatus}).
 *
 * <p>Until the informer holds the HPA as this updater last wrote it, a sync decides from the API's HPA, not the
 * cache's ({@link #current}): a sync that comes soon after a status write (an HPA's first slot right after its
 * immediate sync) would otherwise compare against, and write over, the status before it.
 */
public final class HpaStatusUpdater implements StatusWriter {

    /** Marks a write whose answer could not be read: the next sync reads the HPA from the API. */
    private static final String UNKNOWN = "";

    private final KubeApi api;
    private final WriteGate gate;
    /** HPAs (by sync key) whose cached object may be older than our last status write: the resourceVersion it made. */
    private final Map<String, String> behind = new ConcurrentHashMap<>();

    public HpaStatusUpdater(KubeApi api, WriteGate gate) {
        this.api = api;
        this.gate = gate;
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        write(hpa, status, null);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) throws ApiException {
        HpaApi kind = HpaApi.of(hpa);
        String path = kind.path(hpa.getMetadata().getNamespace(), hpa.getMetadata().getName());
        gate.check();
        String answer;
        try {
            answer = api.put(path + "/status", withStatus(kind, hpa, status, decided));
        } catch (ApiException.Conflict e) {
            HorizontalPodAutoscaler latest = read(kind, path);
            gate.check();
            answer = api.put(path + "/status", withStatus(kind, latest, status, decided));
        }
        behind.put(Reconciler.keyOf(hpa), versionIn(answer));
    }

    /**
     * The HPA a sync decides from: the informer's, or the API's while the informer does not hold this updater's
     * last status write yet. A failed read leaves the informer's: every write is guarded by its resourceVersion.
     */
    public HorizontalPodAutoscaler current(HorizontalPodAutoscaler cached) {
        String key = Reconciler.keyOf(cached);
        String latest = behind.get(key);
        if (latest == null) {
            return cached;
        }
        if (latest.equals(cached.getMetadata().getResourceVersion())) {
            behind.remove(key, latest); // the informer caught up
            return cached;
        }
        HpaApi kind = HpaApi.of(cached);
        try {
            HorizontalPodAutoscaler fresh = read(kind, kind.path(cached.getMetadata().getNamespace(), cached.getMetadata().getName()));
            String version = fresh.getMetadata().getResourceVersion();
            behind.replace(key, latest, version == null ? UNKNOWN : version);
            return fresh;
        } catch (ApiException | RuntimeException e) {
            return cached;
        }
    }

    /** The HPA of this key is gone: nothing to catch up with. */
    public void forget(String key) {
        behind.remove(key);
    }

    /** HPAs whose cached status is known to be behind. */
    int size() {
        return behind.size();
    }

    private HorizontalPodAutoscaler read(HpaApi kind, String path) throws ApiException {
        return kind == HpaApi.MIRROR ? api.get(path, MirrorHpa.class).toCore() : api.get(path, HorizontalPodAutoscaler.class);
    }

    /** The resourceVersion of the HPA the API answered a status write with, {@link #UNKNOWN} when it cannot be read. */
    private String versionIn(String response) {
        try {
            String version = api.serialization().unmarshal(response, JsonNode.class).path("metadata").path("resourceVersion").asText("");
            return version.isEmpty() ? UNKNOWN : version;
        } catch (RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** A copy of the HPA carrying the new status; the informer's object is never modified. */
    private static Object withStatus(HpaApi kind, HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) {
        if (kind == HpaApi.MIRROR) {
            return MirrorHpa.of(hpa, MirrorHpaStatus.of(hpa, status, decided));
        }
        return new HorizontalPodAutoscaler(kind.apiVersion(), "HorizontalPodAutoscaler", hpa.getMetadata(), hpa.getSpec(), status);
    }
}
