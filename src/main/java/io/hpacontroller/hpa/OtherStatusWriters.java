package io.hpacontroller.hpa;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.OtherStatusWriter;
import io.hpacontroller.core.reconcile.StatusEquality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Another controller writing the status of an HPA this one reconciles: the built-in HPA controller left on beside a full
 * replacement, or a second instance of this controller outside its leader election (a {@code run} from a workstation
 * beside the Deployment). Two controllers on one HPA undo each other's status and scale at every sync.
 *
 * <p>Only HPA controllers write an HPA's status. So a sync that reads a status other than the one this instance last
 * wrote (or last found as it would write it) has met another writer. The informers drop managedFields, so the other
 * writer is named from the HPA's managedFields read then, with one GET for that HPA only: the field manager of the
 * latest status write that is not this controller's ({@value #FIELD_MANAGER}). The comparison is made only when the
 * HPA the sync decides from holds this instance's last write (the status updater says so), so a cache behind our own
 * write never reads as another writer; after a status write that failed (and may have been applied), it waits for
 * the next one.
 *
 * <p>A conflict lasts while another write was seen within {@link #QUIET}; nobody else is known once this instance
 * has watched the status that long without seeing one. Each conflict is logged once, when it starts.
 */
final class OtherStatusWriters {

    private static final Logger LOG = LoggerFactory.getLogger(OtherStatusWriters.class);

    /** The field manager of this controller's status writes. */
    static final String FIELD_MANAGER = "hpa-controller";
    /** How long without another write before a conflict is over. */
    static final Duration QUIET = Duration.ofMinutes(10);

    /**
     * The status as this instance last wrote it or found it, and since when it has watched the status unbroken.
     */
    private record Baseline(String resourceVersion, HorizontalPodAutoscalerStatus status, long watchingSince) {
    }

    /** A conflict: the message of its start, and when another write was seen last. */
    private record Conflict(String message, long lastSeen) {
    }

    private final KubeApi api;
    private final Clock clock;
    private final Map<HpaKey, Baseline> baselines = new ConcurrentHashMap<>();
    private final Map<HpaKey, Conflict> conflicts = new ConcurrentHashMap<>();

    OtherStatusWriters(KubeApi api, Clock clock) {
        this.api = api;
        this.clock = clock;
    }

    /** This instance wrote the HPA's status; {@code stored} is the HPA the API server answered with, null when unreadable. */
    void wrote(HpaKey key, HorizontalPodAutoscaler stored) {
        if (stored == null || stored.getMetadata() == null) {
            baselines.remove(key);
            return;
        }
        keep(key, stored);
    }

    /** A sync found the HPA's status as it would write it. */
    void unchanged(HorizontalPodAutoscaler hpa) {
        keep(HpaKey.of(hpa), hpa);
    }

    private void keep(HpaKey key, HorizontalPodAutoscaler hpa) {
        Baseline previous = baselines.get(key);
        long since = previous == null ? clock.millis() : previous.watchingSince();
        baselines.put(key, new Baseline(hpa.getMetadata().getResourceVersion(), hpa.getStatus(), since));
    }

    /** A status write failed: the server may have applied it or not, so what the status should be is unknown. */
    void failed(HpaKey key) {
        baselines.remove(key);
    }

    /** The HPA is gone. */
    void forget(HpaKey key) {
        baselines.remove(key);
        conflicts.remove(key);
    }

    /**
     * What the HPA a sync read says of other writers.
     *
     * @param upToDate whether the HPA holds this instance's last status write (else nothing is compared)
     */
    OtherStatusWriter seen(HorizontalPodAutoscaler hpa, boolean upToDate) {
        HpaKey key = HpaKey.of(hpa);
        long now = clock.millis();
        Conflict conflict = ongoing(key, now);
        Baseline baseline = baselines.get(key);
        if (baseline == null || !upToDate) {
            return conflict == null ? OtherStatusWriter.UNKNOWN : OtherStatusWriter.seen(conflict.message());
        }
        if (!Objects.equals(baseline.resourceVersion(), hpa.getMetadata().getResourceVersion())
                && !StatusEquality.same(baseline.status() == null ? new HorizontalPodAutoscalerStatus() : baseline.status(),
                hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus() : hpa.getStatus())) {
            if (conflict == null) {
                conflict = new Conflict(message(hpa, now), now);
                LOG.atWarn().addKeyValue("hpa", key.toString()).log("{}: {}", key, conflict.message());
            } else {
                conflict = new Conflict(conflict.message(), now);
            }
            conflicts.put(key, conflict);
        }
        if (conflict != null) {
            return OtherStatusWriter.seen(conflict.message());
        }
        return now - baseline.watchingSince() >= QUIET.toMillis() ? OtherStatusWriter.NONE : OtherStatusWriter.UNKNOWN;
    }

    /** The HPA's conflict if another write was seen within {@link #QUIET}; an older one is over. */
    private Conflict ongoing(HpaKey key, long now) {
        Conflict c = conflicts.get(key);
        if (c != null && now - c.lastSeen() >= QUIET.toMillis()) {
            conflicts.remove(key, c);
            return null;
        }
        return c;
    }

    /** The keys of the HPAs in a conflict now. */
    Set<HpaKey> conflicting() {
        long now = clock.millis();
        Set<HpaKey> keys = new TreeSet<>();
        conflicts.forEach((key, c) -> {
            if (now - c.lastSeen() < QUIET.toMillis()) {
                keys.add(key);
            }
        });
        return keys;
    }

    /** The condition's and the event's message: who wrote, when, and what to do. */
    private String message(HorizontalPodAutoscaler hpa, long now) {
        String[] writer = lastOtherStatusWrite(hpa, now);
        String what = writer[0] + " wrote this HPA's status at " + writer[1] + ", between two syncs of " + FIELD_MANAGER
                + ": two controllers reconcile this HPA and undo each other's status and scale";
        return HpaApi.of(hpa) == HpaApi.BUILTIN
                ? what + "; turn off the built-in HPA controller (kube-controller-manager --controllers=*,-horizontal-pod-autoscaler-controller)"
                + " or move this HPA to the mirror API (" + HpaApi.MIRROR.apiVersion() + ")"
                : what + "; keep one of them (another hpa-controller outside this one's leader election?)";
    }

    /**
     * Who wrote the status last, other than this controller, and when: from the HPA's managedFields (the informers drop
     * them), the status entry with the latest time.
     */
    private String[] lastOtherStatusWrite(HorizontalPodAutoscaler hpa, long now) {
        String at = Instant.ofEpochMilli(now).truncatedTo(ChronoUnit.SECONDS).toString();
        JsonNode fields;
        try {
            HpaApi kind = HpaApi.of(hpa);
            fields = api.getJson(kind.path(hpa.getMetadata().getNamespace(), hpa.getMetadata().getName())).path("metadata").path("managedFields");
        } catch (ApiException | RuntimeException e) {
            return new String[] {"another writer (its field manager could not be read: " + e.getMessage() + ")", at};
        }
        String manager = null;
        String time = "";
        boolean ours = false;
        for (JsonNode f : fields) {
            if (!"status".equals(f.path("subresource").asText())) {
                continue;
            }
            String m = f.path("manager").asText("");
            if (FIELD_MANAGER.equals(m)) {
                ours = true;
            } else if (manager == null || f.path("time").asText("").compareTo(time) > 0) {
                manager = m.isEmpty() ? "a writer without a field manager" : m;
                time = f.path("time").asText("");
            }
        }
        if (manager != null) {
            return new String[] {manager, time.isEmpty() ? at : time};
        }
        return new String[] {ours ? "another writer with this controller's field manager (" + FIELD_MANAGER + ": a second instance?)"
                : "another writer", at};
    }
}
