package io.hpacontroller.core.controls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerSpec;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.SettingNode;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.schedule.Schedules;
import io.hpacontroller.core.schedule.SchedulesAnnotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Function;

/**
 * Reads the controls of a mirror API HPA ({@value #GROUP}) from the fields the KEPs propose, which autoscaling/v2's
 * model does not have (fabric8 keeps them in the spec's and the behavior's additional properties):
 * <pre>
 * spec.mode: Preview                                   # Auto, Preview or Suspended
 * spec.fallback: {replicas: 6, failureDurationSeconds: 120}
 * spec.syncPeriodSeconds: 3                            # 1 to 3600 (KEP-6003's spelling, alpha in v1.38)
 * spec.behavior.syncPeriodSeconds: 3                   # the older spelling; both with different values is an error
 * spec.cadence: Fresh                                  # Fresh or Spread
 * spec.behavior.cpuInitializationPeriodSeconds: 120    # 0 to 3600
 * spec.behavior.initialReadinessDelaySeconds: 60       # 0 to 3600
 * spec.schedules: [{cron: "0 8 * * MON-FRI", duration: 10h, timezone: Europe/Berlin, minReplicas: 6}]
 * spec.predict: {model: HoltWinters, season: 24h, horizon: 5m, history: 3d}
 * </pre>
 * The same ranges as the annotations ({@link HpaControls}); the CRD's schema refuses what it can, this checks again
 * (a CRD of an older release, an API server that skips the rules). {@code spec.schedules} and {@code spec.predict}
 * are read by the annotations' own parsers ({@link SchedulesAnnotation}, {@link PredictAnnotation}) from the field's
 * value. The annotations of a mirror HPA are read too; a control given both ways is an error, so the two can never
 * disagree silently. Messages start with the field ({@code spec....}): reason {@code InvalidSpec}.
 */
public final class MirrorControlFields {

    /** The mirror API's group. */
    public static final String GROUP = "autoscaling.hpa-controller.io";

    public static final String MODE = "spec.mode";
    public static final String FALLBACK = "spec.fallback";
    public static final String FALLBACK_REPLICAS = "spec.fallback.replicas";
    public static final String FALLBACK_DURATION = "spec.fallback.failureDurationSeconds";
    public static final String SYNC_PERIOD = "spec.syncPeriodSeconds";
    public static final String BEHAVIOR_SYNC_PERIOD = "spec.behavior.syncPeriodSeconds";
    public static final String CADENCE = "spec.cadence";
    public static final String CPU_INITIALIZATION_PERIOD = "spec.behavior.cpuInitializationPeriodSeconds";
    public static final String INITIAL_READINESS_DELAY = "spec.behavior.initialReadinessDelaySeconds";
    public static final String SCHEDULES = "spec.schedules";
    public static final String PREDICT = "spec.predict";

    private static final ObjectMapper JSON = new ObjectMapper();

    private MirrorControlFields() {
    }

    /** Whether the HPA came from the mirror API (its apiVersion names the group). */
    public static boolean isMirror(HorizontalPodAutoscaler hpa) {
        return hpa != null && hpa.getApiVersion() != null && hpa.getApiVersion().startsWith(GROUP + "/");
    }

    /** The controls of a mirror HPA: its fields, with the annotations' (already parsed) for what has no field. */
    static Parsed<HpaControls> parse(HorizontalPodAutoscalerSpec spec, Map<String, String> annotations) {
        Parsed<HpaControls> fromAnnotations = ControlAnnotations.parse(annotations);
        Map<String, Object> specFields = spec == null || spec.getAdditionalProperties() == null ? Map.of() : spec.getAdditionalProperties();
        Map<String, Object> behaviorFields = spec == null || spec.getBehavior() == null || spec.getBehavior().getAdditionalProperties() == null
                ? Map.of() : spec.getBehavior().getAdditionalProperties();
        if (!hasControlField(specFields, behaviorFields)) {
            return fromAnnotations;
        }
        List<String> problems = new ArrayList<>();
        Fields fields = Fields.read(problems, specFields, behaviorFields);
        fields.checkGivenOnce(problems, specFields, ControlAnnotations.ours(annotations));
        if (fromAnnotations instanceof Parsed.Invalid<HpaControls> invalid) {
            problems.add(invalid.message());
        }
        if (!problems.isEmpty()) {
            return Parsed.invalid(String.join("; ", problems));
        }
        HpaControls c = fields.over(((Parsed.Valid<HpaControls>) fromAnnotations).value());
        return Parsed.valid(c.isNone() ? HpaControls.NONE : c);
    }

    private static boolean hasControlField(Map<String, Object> specFields, Map<String, Object> behaviorFields) {
        return specFields.containsKey("mode") || specFields.containsKey("fallback") || behaviorFields.containsKey("syncPeriodSeconds")
                || specFields.containsKey("syncPeriodSeconds") || specFields.containsKey("cadence")
                || behaviorFields.containsKey("cpuInitializationPeriodSeconds") || behaviorFields.containsKey("initialReadinessDelaySeconds")
                || specFields.containsKey("schedules") || specFields.containsKey("predict");
    }

    /** The controls the fields give (null where a field is absent or invalid; its problem is listed). */
    private record Fields(Duration syncPeriod, SyncCadence cadence, Duration cpuInitialization, Duration initialReadiness, Mode mode,
                          Fallback fallback, Schedules schedules, PredictSetting predict) {

        static Fields read(List<String> problems, Map<String, Object> specFields, Map<String, Object> behaviorFields) {
            return new Fields(MirrorControlFields.syncPeriod(problems, specFields, behaviorFields),
                    MirrorControlFields.cadence(problems, specFields.get("cadence")),
                    seconds(problems, CPU_INITIALIZATION_PERIOD, behaviorFields, "cpuInitializationPeriodSeconds", HpaControls.WARM_UP),
                    seconds(problems, INITIAL_READINESS_DELAY, behaviorFields, "initialReadinessDelaySeconds", HpaControls.WARM_UP),
                    MirrorControlFields.mode(problems, specFields.get("mode")),
                    MirrorControlFields.fallback(problems, specFields.get("fallback")),
                    setting(problems, specFields, "schedules", SCHEDULES, SchedulesAnnotation::parse),
                    setting(problems, specFields, "predict", PREDICT, PredictAnnotation::parse));
        }

        /** A control given both by a field and by its annotation is a problem. */
        void checkGivenOnce(List<String> problems, Map<String, Object> specFields, Map<String, String> annotated) {
            twice(problems, syncPeriod, specFields.containsKey("syncPeriodSeconds") ? SYNC_PERIOD : BEHAVIOR_SYNC_PERIOD, annotated,
                    ControlAnnotations.SYNC_PERIOD);
            twice(problems, cadence, CADENCE, annotated, ControlAnnotations.CADENCE);
            twice(problems, cpuInitialization, CPU_INITIALIZATION_PERIOD, annotated, ControlAnnotations.CPU_INITIALIZATION_PERIOD);
            twice(problems, initialReadiness, INITIAL_READINESS_DELAY, annotated, ControlAnnotations.INITIAL_READINESS_DELAY);
            twice(problems, mode, MODE, annotated, ControlAnnotations.MODE);
            twice(problems, fallback, FALLBACK, annotated, ControlAnnotations.FALLBACK_REPLICAS);
            twice(problems, fallback, FALLBACK, annotated, ControlAnnotations.FALLBACK_AFTER);
            twice(problems, specFields.containsKey("schedules") ? SCHEDULES : null, SCHEDULES, annotated, SchedulesAnnotation.NAME);
            twice(problems, specFields.containsKey("predict") ? PREDICT : null, PREDICT, annotated, PredictAnnotation.NAME);
        }

        /** The annotations' controls with each given field in their place. */
        HpaControls over(HpaControls c) {
            if (syncPeriod != null) {
                c = c.withSyncPeriod(syncPeriod);
            }
            if (fallback != null) {
                c = c.withFallback(fallback);
            }
            if (mode != null) {
                c = c.withMode(mode);
            }
            if (cadence != null) {
                c = c.withCadence(cadence);
            }
            if (schedules != null) {
                c = c.withSchedules(schedules);
            }
            if (predict != null) {
                c = c.withPredict(predict);
            }
            if (cpuInitialization != null || initialReadiness != null) {
                c = c.withWarmUp(cpuInitialization != null ? cpuInitialization : c.cpuInitializationPeriod(),
                        initialReadiness != null ? initialReadiness : c.initialReadinessDelay());
            }
            return c;
        }
    }

    private static void twice(List<String> problems, Object field, String fieldName, Map<String, String> annotated, String annotation) {
        if (field != null && annotated.containsKey(annotation)) {
            problems.add(fieldName + ": also given by the annotation " + annotation + " (set each control in one place: the field)");
        }
    }

    /** A field read by its annotation's parser, given the field's value with the field's path; null when absent or invalid. */
    private static <T> T setting(List<String> problems, Map<String, Object> fields, String key, String name,
                                 Function<SettingNode, Parsed<T>> parser) {
        if (!fields.containsKey(key)) {
            return null;
        }
        JsonNode value = JSON.valueToTree(fields.get(key));
        Parsed<T> parsed = parser.apply(SettingNode.of(value, name));
        if (parsed instanceof Parsed.Invalid<T> invalid) {
            problems.add(invalid.message());
            return null;
        }
        return ((Parsed.Valid<T>) parsed).value();
    }

    private static Duration seconds(List<String> problems, String name, Map<String, Object> fields, String key, DurationRange range) {
        if (!fields.containsKey(key)) {
            return null;
        }
        Long n = wholeNumber(fields.get(key));
        if (n == null || !range.contains(Duration.ofSeconds(n))) {
            problems.add(name + ": must be a whole number of seconds " + range.inSeconds() + ", got " + shown(fields.get(key)));
            return null;
        }
        return Duration.ofSeconds(n);
    }

    /**
     * The sync period from {@code spec.syncPeriodSeconds} (KEP-6003) or the older {@code spec.behavior.syncPeriodSeconds}:
     * both may be given only with the same value.
     */
    private static Duration syncPeriod(List<String> problems, Map<String, Object> specFields, Map<String, Object> behaviorFields) {
        Duration top = seconds(problems, SYNC_PERIOD, specFields, "syncPeriodSeconds", HpaControls.SYNC_PERIOD);
        Duration older = seconds(problems, BEHAVIOR_SYNC_PERIOD, behaviorFields, "syncPeriodSeconds", HpaControls.SYNC_PERIOD);
        if (top != null && older != null && !top.equals(older)) {
            problems.add(SYNC_PERIOD + ": " + top.toSeconds() + " differs from " + BEHAVIOR_SYNC_PERIOD + ": " + older.toSeconds()
                    + " (the same control spelled twice: keep " + SYNC_PERIOD + ")");
            return null;
        }
        return top != null ? top : older;
    }

    private static SyncCadence cadence(List<String> problems, Object value) {
        if (value == null) {
            return null;
        }
        SyncCadence c = value instanceof String s ? SyncCadence.of(s) : null;
        if (c == null) {
            problems.add(CADENCE + ": must be one of " + SyncCadence.choices() + ", got " + shown(value));
        }
        return c;
    }

    private static Mode mode(List<String> problems, Object value) {
        if (value == null) {
            return null;
        }
        Mode m = value instanceof String s ? Mode.of(s) : null;
        if (m == null) {
            problems.add(MODE + ": must be one of " + Mode.choices() + ", got " + shown(value));
        }
        return m;
    }

    private static Fallback fallback(List<String> problems, Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?> fields)) {
            problems.add(FALLBACK + ": must be an object with replicas and failureDurationSeconds, got " + shown(value));
            return null;
        }
        int before = problems.size();
        Long replicas = wholeNumber(fields.get("replicas"));
        if (replicas == null || replicas < HpaControls.MIN_FALLBACK_REPLICAS || replicas > Integer.MAX_VALUE) {
            problems.add(FALLBACK_REPLICAS + ": must be a whole number of at least " + HpaControls.MIN_FALLBACK_REPLICAS + ", got "
                    + shown(fields.get("replicas")));
        }
        Long after = wholeNumber(fields.get("failureDurationSeconds"));
        if (after == null || !HpaControls.FALLBACK_AFTER.contains(Duration.ofSeconds(after))) {
            problems.add(FALLBACK_DURATION + ": must be a whole number of seconds " + HpaControls.FALLBACK_AFTER.inSeconds() + ", got "
                    + shown(fields.get("failureDurationSeconds")));
        }
        for (Object k : fields.keySet()) {
            if (!"replicas".equals(k) && !"failureDurationSeconds".equals(k)) {
                problems.add(FALLBACK + "." + k + ": unknown field (known: replicas, failureDurationSeconds)");
            }
        }
        return problems.size() > before ? null : new Fallback(replicas.intValue(), Duration.ofSeconds(after));
    }

    private static Long wholeNumber(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            return ((Number) value).longValue();
        }
        if (value instanceof java.math.BigInteger b && b.bitLength() < 63) {
            return b.longValue();
        }
        return null;
    }

    private static String shown(Object value) {
        return value == null ? "nothing" : value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    }
}
