package io.hpacontroller.history;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.api.ServedResource;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.Retention;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.hpa.HpaApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Each HPA's history kept in the cluster, one {@link StoredHistory} object per HPA, so that a new leader (or a
 * restarted controller) decides as the previous one would have.
 *
 * <p>{@link #restore}: before an HPA's first sync in this process, its object is read (one GET, or for the HPAs
 * known when the workers start, one LIST per namespace at that moment: {@link #prefetch}) and its history
 * restored, the run in progress taken to have lasted until now ({@link HistorySnapshot#withRunUntil}: the
 * previous leader recommended that count, unchanged, at least until its last write, and more likely until it
 * stopped). An object that cannot be read or parsed costs a Warning event {@value #FAILED_RESTORE_HISTORY} and a
 * log line; the HPA is decided with an empty history, as upstream decides after a restart.
 *
 * <p>{@link #save}: called at every sync that reached a decision, before the scale is written, with the
 * compacted history that sync leaves. Written (one PUT, or one POST for a new object) only when it is not
 * {@linkplain Retention#equivalent equivalent} to what was kept last; a change of the learned load alone at
 * most once a minute; nothing for a history a new leader's first sync would make up again (one
 * recommendation, nothing else). Every write passes the {@link WriteGate} and carries the resourceVersion
 * last read or written: a conflict (another instance wrote it) forgets the HPA's history here, so that its
 * next sync restores what is in the cluster instead of overwriting it. An object deleted under it is created
 * again by the same write. While the CRD is missing (a create met 404 and discovery no longer lists the resource:
 * deleted, say by an uninstall), the histories are kept in memory only, as upstream keeps them, and scaling goes on: a
 * Warning event {@value #HISTORY_NOT_PERSISTED} per HPA and outage, one log line ({@link ServedResource}); discovery is
 * asked again with backoff, and once it lists the resource again each HPA's next save writes its whole history.
 * Any other failure (a 404 discovery does not confirm, a 409, a timeout) is thrown: the sync then writes no scale.
 */
public final class HistoryObjects implements HistoryWriter {

    private static final Logger LOG = LoggerFactory.getLogger(HistoryObjects.class);
    /** Warning event of a history that could not be restored. */
    public static final String FAILED_RESTORE_HISTORY = "FailedRestoreHistory";
    /** Warning event of an HPA whose history is kept in memory only, its CRD missing: once per HPA and outage. */
    public static final String HISTORY_NOT_PERSISTED = "HistoryNotPersisted";
    /** How often a change of the learned load alone is written. */
    static final long LEARNED_LOAD_PERIOD_MILLIS = 60_000;
    /** Objects per page when the histories are listed. */
    static final int LIST_PAGE = 500;
    /** The longest wait between two discovery checks while the CRD is missing. */
    static final Duration MAX_RECHECK = Duration.ofSeconds(5);

    private final KubeApi reads;
    private final KubeApi writes;
    private final WriteGate gate;
    private final HistoryStore histories;
    private final EventRecorder events;
    /** By HPA key: what the cluster holds for it, as far as this instance knows. */
    private final Map<HpaKey, Kept> kept = new ConcurrentHashMap<>();
    /** Whether the API server serves the objects (their CRD may be deleted and installed again). */
    private final ServedResource resource;
    /** By HPA key: the outage ({@link ServedResource#outages}) it was told of last, so that each is told once. */
    private final Map<HpaKey, Long> told = new ConcurrentHashMap<>();

    /**
     * What the cluster holds for an HPA.
     *
     * @param resourceVersion the object's, null when none is known to exist
     * @param history         the history it holds, null when none this instance can use (none, unreadable, another HPA's)
     * @param writtenAt       when this instance wrote it last (epoch millis), 0 when never
     */
    private record Kept(String resourceVersion, HistorySnapshot history, long writtenAt) {
        static final Kept NOTHING = new Kept(null, null, 0);
    }

    /** @param syncPeriod the HPAs' sync period: while the CRD is missing, discovery is asked again at most a third of it apart */
    public HistoryObjects(KubeApi reads, KubeApi writes, WriteGate gate, HistoryStore histories, EventRecorder events, Duration syncPeriod) {
        this.reads = Objects.requireNonNull(reads);
        this.writes = Objects.requireNonNull(writes);
        this.gate = Objects.requireNonNull(gate);
        this.histories = Objects.requireNonNull(histories);
        this.events = Objects.requireNonNull(events);
        Duration recheck = syncPeriod.dividedBy(3);
        this.resource = new ServedResource(reads, StoredHistory.GROUP, StoredHistory.VERSION, StoredHistory.PLURAL,
                recheck.compareTo(MAX_RECHECK) > 0 ? MAX_RECHECK : recheck,
                "the HPAs' histories are kept in memory only, as upstream keeps them (a restart or a new leader starts them afresh),"
                        + " and scaling goes on; they are written again once it is back. Install the CRD (charts/hpa-controller/crds/, or deploy/)"
                        + " or run with --persist-history=false.");
    }

    private static String path(HorizontalPodAutoscaler hpa) {
        return StoredHistory.collectionPath(hpa.getMetadata().getNamespace()) + "/" + PathSegment.encode(objectName(hpa));
    }

    /** The name of the HPA's history object. */
    private static String objectName(HorizontalPodAutoscaler hpa) {
        return StoredHistory.nameFor(HpaApi.of(hpa), hpa.getMetadata().getName());
    }

    /**
     * Restores the HPA's history from the cluster unless this instance already knows it (the first sync of the HPA in
     * this process, or the first after it was forgotten: {@link #forget}, a conflict). Never throws.
     */
    @Override
    public void restore(HorizontalPodAutoscaler hpa, long now) {
        HpaKey key = HpaKey.of(hpa);
        if (kept.containsKey(key)) {
            return;
        }
        String body;
        try {
            body = reads.get(path(hpa));
        } catch (ApiException.NotFound e) {
            nothingKept(key);
            return;
        } catch (ApiException e) {
            unrestored(hpa, key, null, "cannot be read: " + e.getMessage());
            return;
        }
        restoreFrom(hpa, key, () -> reads.serialization().unmarshal(body, StoredHistory.class), now);
    }

    /**
     * Restores at once the histories of the HPAs this instance does not know yet, from one LIST of the history
     * objects per namespace ({@code namespaces}; empty: one for the cluster) instead of one GET per HPA at its first
     * sync: at start-up, or when it becomes the leader, with every HPA in its caches. Called before any sync (a sync
     * may write an object the list would not show). When the list cannot be read (an older ClusterRole without
     * {@code list}, say), nothing is restored here and each HPA's object is read at its first sync. Never throws.
     */
    public void prefetch(Collection<HorizontalPodAutoscaler> hpas, List<String> namespaces, long now) {
        Map<String, List<HorizontalPodAutoscaler>> byNamespace = new TreeMap<>();
        for (HorizontalPodAutoscaler hpa : hpas) {
            if (!kept.containsKey(HpaKey.of(hpa))) {
                byNamespace.computeIfAbsent(hpa.getMetadata().getNamespace(), ns -> new ArrayList<>()).add(hpa);
            }
        }
        if (byNamespace.isEmpty()) {
            return;
        }
        Map<String, JsonNode> objects = new HashMap<>(); // by namespace/name
        try {
            if (namespaces.isEmpty()) {
                list(StoredHistory.clusterCollectionPath(), objects);
            } else {
                for (String namespace : byNamespace.keySet()) {
                    list(StoredHistory.collectionPath(namespace), objects);
                }
            }
        } catch (ApiException | RuntimeException e) {
            LOG.info("the kept histories could not be listed ({}): each HPA's is read at its first sync", e.getMessage());
            return;
        }
        byNamespace.forEach((namespace, inNamespace) -> {
            for (HorizontalPodAutoscaler hpa : inNamespace) {
                HpaKey key = HpaKey.of(hpa);
                JsonNode object = objects.get(namespace + "/" + objectName(hpa));
                if (object == null) {
                    nothingKept(key);
                } else {
                    restoreFrom(hpa, key, () -> reads.serialization().convertValue(object, StoredHistory.class), now);
                }
            }
        });
        LOG.info("listed the kept histories: {} objects for {} HPAs", objects.size(),
                byNamespace.values().stream().mapToInt(List::size).sum());
    }

    /** Every object of the collection, by namespace/name, a page of {@value #LIST_PAGE} at a time. */
    private void list(String collection, Map<String, JsonNode> into) throws ApiException {
        String next = null;
        do {
            JsonNode page = reads.getJson(collection + "?limit=" + LIST_PAGE + (next == null ? "" : "&continue=" + KubeApi.encode(next)));
            for (JsonNode item : page.path("items")) {
                into.put(item.path("metadata").path("namespace").asText() + "/" + item.path("metadata").path("name").asText(), item);
            }
            next = page.path("metadata").path("continue").asText(null);
        } while (next != null && !next.isEmpty());
    }

    private void nothingKept(HpaKey key) {
        histories.forget(key);
        kept.put(key, Kept.NOTHING);
    }

    /** Restores the history from the HPA's object, which {@code parse} reads (it throws when it cannot). */
    private void restoreFrom(HorizontalPodAutoscaler hpa, HpaKey key, Supplier<StoredHistory> parse, long now) {
        StoredHistory stored;
        HistorySnapshot history;
        try {
            stored = parse.get();
            if (stored == null || stored.metadata() == null) {
                throw new IllegalArgumentException("not an object");
            }
        } catch (RuntimeException e) {
            unrestored(hpa, key, null, "cannot be parsed: " + e.getMessage());
            return;
        }
        String version = stored.metadata().getResourceVersion();
        if (!stored.belongsTo(hpa)) {
            // left by an earlier HPA of that name: the garbage collector removes it; the first write replaces it
            histories.forget(key);
            kept.put(key, new Kept(version, null, 0));
            return;
        }
        try {
            history = stored.history();
        } catch (RuntimeException e) {
            unrestored(hpa, key, version, "cannot be parsed: " + e.getMessage());
            return;
        }
        histories.restore(key, history.withRunUntil(now));
        kept.put(key, new Kept(version, history, 0));
        LOG.info("restored the history of {}: {} recommendations, {} scale-ups, {} scale-downs, {} failing metrics", key,
                history.recommendations().size(), history.scaleUpEvents().size(), history.scaleDownEvents().size(), history.metricFailures().size());
    }

    private void unrestored(HorizontalPodAutoscaler hpa, HpaKey key, String version, String why) {
        String message = "the kept history (" + StoredHistory.KIND + " " + hpa.getMetadata().getNamespace() + "/" + objectName(hpa) + ") " + why
                + "; deciding with an empty history, as after a restart without it";
        LOG.warn("{}: {}", key, message);
        events.record(hpa, EventRecorder.Type.Warning, FAILED_RESTORE_HISTORY, message);
        histories.forget(key);
        kept.put(key, new Kept(version, null, 0));
    }

    @Override
    public void save(HorizontalPodAutoscaler hpa, HistorySnapshot history, Retention retention, long now) throws ApiException {
        HpaKey key = HpaKey.of(hpa);
        Kept last = kept.getOrDefault(key, Kept.NOTHING);
        HistorySnapshot next = bounded(key, history);
        if (nothingToWrite(last, next, retention, now)) {
            return;
        }
        if (!resource.served(now)) {
            inMemoryOnly(hpa, key, last);
            return;
        }
        gate.check();
        String body;
        try {
            body = write(hpa, next, last.resourceVersion(), now);
        } catch (ApiException.Conflict e) {
            // written by another instance since this one read it: restore from the cluster at the next sync
            gate.fenced();
            kept.remove(key);
            histories.forget(key);
            throw e;
        }
        if (body == null) {
            inMemoryOnly(hpa, key, last);
            return;
        }
        String version = resourceVersionOf(body);
        if (version == null) {
            // written, but its version is unknown: read it again before the next write
            kept.remove(key);
            return;
        }
        kept.put(key, new Kept(version, next, now));
    }

    /** Whether {@code next} tells nothing the kept history does not, so that no write is due. */
    private static boolean nothingToWrite(Kept last, HistorySnapshot next, Retention retention, long now) {
        if (last.history() != null) {
            // nothing a decision could tell, or only the learned load, whose change alone waits for its period
            return retention.equivalent(last.history().withLearnedLoad(null), next.withLearnedLoad(null), now)
                    && (Objects.equals(last.history().learnedLoad(), next.learnedLoad()) || now - last.writtenAt() < LEARNED_LOAD_PERIOD_MILLIS);
        }
        return last.resourceVersion() == null && next.onlyTheRunInProgress(); // what a new leader's first sync makes up again
    }

    /** The resourceVersion of the written object in a write's answer, or null when it cannot be read. */
    private String resourceVersionOf(String body) {
        try {
            StoredHistory written = writes.serialization().unmarshal(body, StoredHistory.class);
            return written == null || written.metadata() == null ? null : written.metadata().getResourceVersion();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Replaces the object of version {@code version}, or creates it (null). An object deleted meanwhile (a
     * {@code kubectl delete}, its CRD deleted and installed again) is created again at once: this instance leads
     * and holds the HPA's history, and a create cannot overwrite an object another instance wrote (409). A create
     * that meets a 404 is asked about of discovery: null when the CRD is missing ({@link ServedResource}).
     */
    private String write(HorizontalPodAutoscaler hpa, HistorySnapshot history, String version, long now) throws ApiException {
        if (version != null) {
            try {
                return writes.put(path(hpa), StoredHistory.of(hpa, history, version));
            } catch (ApiException.NotFound e) {
                LOG.info("{}: its kept history ({} {}) was deleted; creating it again", HpaKey.of(hpa), StoredHistory.KIND, objectName(hpa));
            }
        }
        try {
            return writes.post(StoredHistory.collectionPath(hpa.getMetadata().getNamespace()), StoredHistory.of(hpa, history, null));
        } catch (ApiException.NotFound e) {
            if (resource.confirmsMissing(e, now)) {
                return null;
            }
            throw e;
        }
    }

    /**
     * The CRD is missing: the history stays in memory, as upstream's, and the sync goes on; the HPA is told once per
     * outage, and its next save once the CRD is back writes its whole history (what the cluster held went with the CRD).
     */
    private void inMemoryOnly(HorizontalPodAutoscaler hpa, HpaKey key, Kept last) {
        kept.put(key, new Kept(last.resourceVersion(), null, 0));
        Long outage = resource.outages();
        if (!outage.equals(told.put(key, outage))) {
            events.record(hpa, EventRecorder.Type.Warning, HISTORY_NOT_PERSISTED, resource.missingMessage()
                    + ": its history (recommendations, scale events) is kept in memory only, as upstream keeps it, and scaling goes on;"
                    + " a restart or a new leader would start it afresh");
        }
    }

    /** Whether the histories are written to the cluster: false while their CRD is missing. */
    public boolean persisted() {
        return !resource.missing();
    }

    /** The history within the stored object's bound: a learned load beyond {@link StoredHistory#MAX_LEARNED_LOAD} is not kept. */
    private static HistorySnapshot bounded(HpaKey key, HistorySnapshot history) {
        String learned = history.learnedLoad();
        if (learned != null && learned.length() > StoredHistory.MAX_LEARNED_LOAD) {
            LOG.warn("{}: the learned load ({} characters) is longer than the {} kept; not kept", key, learned.length(), StoredHistory.MAX_LEARNED_LOAD);
            return history.withLearnedLoad(null);
        }
        return history;
    }

    /** The HPA was deleted: its object goes with it (garbage collection). */
    public void forget(HpaKey key) {
        kept.remove(key);
        told.remove(key);
    }

    /** HPAs of which this instance knows what the cluster holds. */
    public int size() {
        return kept.size();
    }

    /** Whether this instance knows what the cluster holds for the HPA (restored, or found to hold nothing). */
    boolean knows(HpaKey key) {
        return kept.containsKey(key);
    }
}
