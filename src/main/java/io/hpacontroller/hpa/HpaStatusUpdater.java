package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.OwnWrites;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.trace.DecisionTrace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

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
 *
 * <p>A write that fails is never silent: besides the core's Warning event {@code FailedUpdateStatus}, a WARN line with the
 * API server's message and a count per API ({@link #failures}). What was written is also what tells another writer of
 * the same status apart ({@link OtherStatusWriters}, field manager {@value OtherStatusWriters#FIELD_MANAGER}).
 */
public final class HpaStatusUpdater implements StatusWriter {

    private static final Logger LOG = LoggerFactory.getLogger(HpaStatusUpdater.class);

    private final KubeApi api;
    private final WriteGate gate;
    /** HPAs (by sync key) whose cached object may be older than our last status write. */
    private final OwnWrites<HpaKey> ownWrites = new OwnWrites<>();
    private final OtherStatusWriters others;
    private final Map<HpaApi, LongAdder> failures = new EnumMap<>(HpaApi.class);

    public HpaStatusUpdater(KubeApi api, WriteGate gate) {
        this(api, gate, Clock.systemUTC());
    }

    public HpaStatusUpdater(KubeApi api, WriteGate gate, Clock clock) {
        this.api = api;
        this.gate = gate;
        this.others = new OtherStatusWriters(api, clock);
        for (HpaApi kind : HpaApi.values()) {
            failures.put(kind, new LongAdder());
        }
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException {
        write(hpa, status, null);
    }

    @Override
    public void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) throws ApiException {
        HpaApi kind = HpaApi.of(hpa);
        HpaKey key = HpaKey.of(hpa);
        String path = kind.path(hpa.getMetadata().getNamespace(), hpa.getMetadata().getName());
        gate.check();
        String answer;
        try {
            try {
                answer = api.put(statusPath(path), withStatus(kind, hpa, status, decided));
            } catch (ApiException.Conflict e) {
                HorizontalPodAutoscaler latest = read(kind, path);
                gate.check();
                answer = api.put(statusPath(path), withStatus(kind, latest, status, decided));
            }
        } catch (ApiException e) {
            others.failed(key);
            if (e instanceof ApiException.NotFound) { // deleted during its sync: nothing was refused, and nothing is left to write to
                LOG.atInfo().addKeyValue("hpa", key.toString()).log("status of {} not written: the HPA was deleted", key);
            } else if (gate.isOpen()) { // not a write this instance stopped itself (shutdown, lost lease)
                failures.get(kind).increment();
                LOG.atWarn().addKeyValue("hpa", key.toString()).log("status of {} not written: {}", key, e.getMessage());
            }
            throw e;
        }
        HorizontalPodAutoscaler stored = stored(kind, answer);
        ownWrites.wrote(key, stored == null ? null : stored.getMetadata().getResourceVersion());
        others.wrote(key, stored);
    }

    private static String statusPath(String path) {
        return path + "/status?fieldManager=" + OtherStatusWriters.FIELD_MANAGER;
    }

    /** Status writes that failed (the API server refused them, or did not answer), of HPAs of this API; not those of an HPA deleted meanwhile. */
    public long failures(HpaApi kind) {
        return failures.get(kind).sum();
    }

    @Override
    public OtherStatusWriter otherWriter(HorizontalPodAutoscaler hpa) {
        try {
            return others.seen(hpa, holdsLastWrite(hpa));
        } catch (RuntimeException e) {
            LOG.debug("other writers of {} not checked", HpaKey.of(hpa), e);
            return OtherStatusWriter.UNKNOWN;
        }
    }

    @Override
    public void unchanged(HorizontalPodAutoscaler hpa) {
        if (holdsLastWrite(hpa)) {
            others.unchanged(hpa);
        }
    }

    /** Whether the HPA (as {@link #current} gave it) holds this updater's last status write, or a later version. */
    private boolean holdsLastWrite(HorizontalPodAutoscaler hpa) {
        return ownWrites.holds(HpaKey.of(hpa), hpa.getMetadata().getResourceVersion());
    }

    /** The HPAs whose status another writer wrote lately (keys). */
    public Set<HpaKey> conflicting() {
        return others.conflicting();
    }

    /**
     * The HPA a sync decides from: the informer's, or the API's while the informer does not hold this updater's
     * last status write yet ({@link OwnWrites}). A failed read leaves the informer's: every write is guarded by its
     * resourceVersion. The driver calls it before each sync and hands the core what it returns: the core never asks
     * a write port for a fresher copy.
     */
    public HorizontalPodAutoscaler current(HorizontalPodAutoscaler cached) {
        HpaApi kind = HpaApi.of(cached);
        try {
            return ownWrites.current(HpaKey.of(cached), cached, hpa -> hpa.getMetadata().getResourceVersion(),
                    () -> read(kind, kind.path(cached.getMetadata().getNamespace(), cached.getMetadata().getName())));
        } catch (ApiException | RuntimeException e) {
            return cached;
        }
    }

    /** The HPA of this key is gone: nothing to catch up with. */
    public void forget(HpaKey key) {
        ownWrites.forget(key);
        others.forget(key);
    }

    /** HPAs whose cached status is known to be behind. */
    public int size() {
        return ownWrites.size();
    }

    private HorizontalPodAutoscaler read(HpaApi kind, String path) throws ApiException {
        return kind == HpaApi.MIRROR ? api.get(path, MirrorHpa.class).toCore() : api.get(path, HorizontalPodAutoscaler.class);
    }

    /** The HPA the API answered a status write with (as the core sees it), null when it cannot be read. */
    private HorizontalPodAutoscaler stored(HpaApi kind, String response) {
        try {
            HorizontalPodAutoscaler hpa = kind == HpaApi.MIRROR ? api.serialization().unmarshal(response, MirrorHpa.class).toCore()
                    : api.serialization().unmarshal(response, HorizontalPodAutoscaler.class);
            return hpa == null || hpa.getMetadata() == null ? null : hpa;
        } catch (RuntimeException e) {
            return null;
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
