package io.hpacontroller.history;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.core.normalize.HistorySnapshot;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.normalize.MetricFailures;

import io.hpacontroller.hpa.HpaApi;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A HorizontalPodAutoscalerHistory ({@code autoscaling.hpa-controller.io/v1}) as stored: one per HPA, in its
 * namespace, owned by it (garbage-collected with it), holding its compacted history. Times are RFC 3339 with
 * milliseconds, so {@code kubectl get hpahistory NAME -o yaml} reads as the HPA's own times do.
 *
 * <p>The object of an autoscaling/v2 HPA is named after it; a mirror HPA's after it with the suffix
 * {@value #MIRROR_SUFFIX} (both APIs may hold an HPA of the same name). {@code spec.hpa} names the HPA and its
 * uid: an object left by an earlier HPA of the same name (before the garbage collector removed it) is not
 * restored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record StoredHistory(String apiVersion, String kind, ObjectMeta metadata, Spec spec) {

    public static final String GROUP = HpaApi.MIRROR.group();
    public static final String VERSION = "v1";
    public static final String KIND = "HorizontalPodAutoscalerHistory";
    public static final String PLURAL = "horizontalpodautoscalerhistories";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    static final String MIRROR_SUFFIX = ".mirror";
    /** The longest learned load kept (characters of its encoded form). */
    public static final int MAX_LEARNED_LOAD = 64 * 1024;

    /** The HPA an object belongs to. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record HpaRef(String apiVersion, String name, String uid) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Recommendation(Integer replicas, String time) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ScaleEvent(Integer replicaChange, String time) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record MetricFailure(String metric, String since, Boolean fallback) {
    }

    /**
     * @param recommendations oldest first, the run in progress (the latest sync's) last
     * @param scaleUpEvents   in slot order
     * @param scaleDownEvents in slot order
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Spec(HpaRef hpa, Boolean seen, List<Recommendation> recommendations, List<ScaleEvent> scaleUpEvents,
                       List<ScaleEvent> scaleDownEvents, List<MetricFailure> metricFailures, String learnedLoad) {
    }

    /** The name of the object of an HPA (a DNS subdomain of at most 253 characters). */
    static String nameFor(HpaApi api, String hpaName) {
        String name = api == HpaApi.MIRROR ? hpaName + MIRROR_SUFFIX : hpaName;
        if (name.length() <= 253) {
            return name;
        }
        return hpaName.substring(0, 200) + "." + digest(api.apiVersion() + "/" + hpaName);
    }

    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The path of the objects of every namespace (a list across the cluster). */
    static String clusterCollectionPath() {
        return "/apis/" + API_VERSION + "/" + PLURAL;
    }

    /** The path of the objects of a namespace. */
    static String collectionPath(String namespace) {
        return "/apis/" + API_VERSION + "/namespaces/" + PathSegment.encode(namespace) + "/" + PLURAL;
    }

    /** The object holding {@code history} for {@code hpa}, replacing the version {@code resourceVersion} (null: a new object). */
    static StoredHistory of(HorizontalPodAutoscaler hpa, HistorySnapshot history, String resourceVersion) {
        HpaApi api = HpaApi.of(hpa);
        ObjectMeta meta = new ObjectMeta();
        meta.setName(nameFor(api, hpa.getMetadata().getName()));
        meta.setNamespace(hpa.getMetadata().getNamespace());
        meta.setResourceVersion(resourceVersion);
        String uid = hpa.getMetadata().getUid();
        if (uid != null) {
            OwnerReference owner = new OwnerReference();
            owner.setApiVersion(api.apiVersion());
            owner.setKind("HorizontalPodAutoscaler");
            owner.setName(hpa.getMetadata().getName());
            owner.setUid(uid);
            owner.setController(true);
            meta.setOwnerReferences(List.of(owner));
        }
        List<Recommendation> recs = history.recommendations().stream().map(r -> new Recommendation(r.replicas(), time(r.timestamp()))).toList();
        List<MetricFailure> failures = history.metricFailures().stream()
                .map(f -> new MetricFailure(f.metric(), time(f.since()), f.fallback())).toList();
        Spec spec = new Spec(new HpaRef(api.apiVersion(), hpa.getMetadata().getName(), uid), history.seen(), recs,
                events(history.scaleUpEvents()), events(history.scaleDownEvents()), failures, history.learnedLoad());
        return new StoredHistory(API_VERSION, KIND, meta, spec);
    }

    private static List<ScaleEvent> events(List<HpaHistory.ScaleEvent> events) {
        return events.stream().map(e -> new ScaleEvent(e.replicaChange(), time(e.timestamp()))).toList();
    }

    private static String time(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    /** Whether this object was written for {@code hpa} (same API, name and, when both are known, uid). */
    boolean belongsTo(HorizontalPodAutoscaler hpa) {
        HpaRef ref = spec == null ? null : spec.hpa();
        if (ref == null) {
            return false;
        }
        String uid = hpa.getMetadata().getUid();
        return HpaApi.of(hpa).apiVersion().equals(ref.apiVersion()) && hpa.getMetadata().getName().equals(ref.name())
                && (uid == null || ref.uid() == null || uid.equals(ref.uid()));
    }

    /** The history this object holds. */
    HistorySnapshot history() {
        if (spec == null) {
            throw new IllegalArgumentException("spec is missing");
        }
        List<HpaHistory.Recommendation> recs = new ArrayList<>();
        for (Recommendation r : list(spec.recommendations())) {
            recs.add(new HpaHistory.Recommendation(count(r.replicas(), "recommendations[].replicas"), millis(r.time(), "recommendations[].time")));
        }
        List<MetricFailures.MetricFailure> failures = new ArrayList<>();
        for (MetricFailure f : list(spec.metricFailures())) {
            if (f.metric() == null || f.metric().isEmpty()) {
                throw new IllegalArgumentException("metricFailures[].metric is missing");
            }
            failures.add(new MetricFailures.MetricFailure(f.metric(), millis(f.since(), "metricFailures[].since"), Boolean.TRUE.equals(f.fallback())));
        }
        String learned = spec.learnedLoad();
        if (learned != null && learned.length() > MAX_LEARNED_LOAD) {
            throw new IllegalArgumentException("learnedLoad is longer than " + MAX_LEARNED_LOAD + " characters");
        }
        return new HistorySnapshot(!Boolean.FALSE.equals(spec.seen()), recs, history(spec.scaleUpEvents(), "scaleUpEvents"),
                history(spec.scaleDownEvents(), "scaleDownEvents"), failures, learned);
    }

    private static List<HpaHistory.ScaleEvent> history(List<ScaleEvent> events, String field) {
        List<HpaHistory.ScaleEvent> out = new ArrayList<>();
        for (ScaleEvent e : list(events)) {
            out.add(new HpaHistory.ScaleEvent(count(e.replicaChange(), field + "[].replicaChange"), millis(e.time(), field + "[].time")));
        }
        return out;
    }

    private static <T> List<T> list(List<T> items) {
        if (items == null) {
            return List.of();
        }
        if (items.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("a list holds a null entry");
        }
        return items;
    }

    private static int count(Integer value, String field) {
        if (value == null || value < 0) {
            throw new IllegalArgumentException(field + " must be a count of at least 0, got " + value);
        }
        return value;
    }

    private static long millis(String time, String field) {
        if (time == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        try {
            return Instant.parse(time).toEpochMilli();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(field + " is not an RFC 3339 time: " + time);
        }
    }
}
