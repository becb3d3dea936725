package io.hpacontroller.core.controls;

import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.forecast.PredictAnnotation;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.schedule.Schedules;
import io.hpacontroller.core.schedule.SchedulesAnnotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads the controls of an ordinary autoscaling/v2 HPA from its annotations under {@value #PREFIX}:
 * <pre>
 * autoscaling.hpa-controller.io/sync-period: 3s                  # 1s to 1h
 * autoscaling.hpa-controller.io/fallback-replicas: "6"           # at least 1, with fallback-after
 * autoscaling.hpa-controller.io/fallback-after: 2m               # 1s to 24h, with fallback-replicas
 * autoscaling.hpa-controller.io/mode: Preview                    # Auto, Preview or Suspended
 * autoscaling.hpa-controller.io/cpu-initialization-period: 2m    # 0s to 1h
 * autoscaling.hpa-controller.io/initial-readiness-delay: 60s     # 0s to 1h
 * autoscaling.hpa-controller.io/schedules: ...                   # SchedulesAnnotation
 * autoscaling.hpa-controller.io/predict: ...                     # PredictAnnotation
 * autoscaling.hpa-controller.io/cadence: Fresh                   # Fresh or Spread
 * </pre>
 * Durations are Go's ({@code 90s}, {@code 1m30s}). A malformed or out-of-range value, a fallback half given,
 * or a name under the prefix that is none of {@link #KNOWN} (a typo must not be silently ignored) makes the
 * whole set invalid: one message naming every annotation at fault and what it accepts.
 */
public final class ControlAnnotations {

    public static final String PREFIX = "autoscaling.hpa-controller.io/";
    public static final String SYNC_PERIOD = PREFIX + "sync-period";
    public static final String FALLBACK_REPLICAS = PREFIX + "fallback-replicas";
    public static final String FALLBACK_AFTER = PREFIX + "fallback-after";
    public static final String MODE = PREFIX + "mode";
    public static final String CPU_INITIALIZATION_PERIOD = PREFIX + "cpu-initialization-period";
    public static final String INITIAL_READINESS_DELAY = PREFIX + "initial-readiness-delay";
    public static final String CADENCE = PREFIX + "cadence";

    /**
     * Every annotation name under the prefix that some part of the controller reads; any other is an error. A part
     * that adds one (scheduled and predictive scaling, the mirror API, the persisted state) adds it here.
     */
    public static final Set<String> KNOWN = Set.of(SYNC_PERIOD, FALLBACK_REPLICAS, FALLBACK_AFTER, MODE, CPU_INITIALIZATION_PERIOD,
            INITIAL_READINESS_DELAY, SchedulesAnnotation.NAME, PredictAnnotation.NAME, CADENCE);

    private ControlAnnotations() {
    }

    /** The annotations under the prefix, sorted by name (what a change of controls is compared on). */
    public static SortedMap<String, String> ours(Map<String, String> annotations) {
        SortedMap<String, String> out = new TreeMap<>();
        if (annotations != null) {
            annotations.forEach((k, v) -> {
                if (k != null && k.startsWith(PREFIX)) {
                    out.put(k, v);
                }
            });
        }
        return out;
    }

    /** The controls the annotations give: {@link HpaControls#NONE} without any under the prefix. */
    public static Parsed<HpaControls> parse(Map<String, String> annotations) {
        SortedMap<String, String> ours = ours(annotations);
        if (ours.isEmpty()) {
            return Parsed.valid(HpaControls.NONE);
        }
        List<String> problems = new ArrayList<>();
        Given given = new Given();
        for (Map.Entry<String, String> a : ours.entrySet()) {
            try {
                given.take(a.getKey(), a.getValue());
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        given.checkFallbackHalves(ours, problems);
        return problems.isEmpty() ? Parsed.valid(given.controls()) : Parsed.invalid(String.join("; ", problems));
    }

    /** The controls read so far, one annotation at a time in the order of their names. */
    private static final class Given {
        private Duration syncPeriod;
        private Integer fallbackReplicas;
        private Duration fallbackAfter;
        private Mode mode = Mode.AUTO;
        private Duration cpuInitialization;
        private Duration initialReadiness;
        private Schedules schedules;
        private PredictSetting predict;
        private SyncCadence cadence;

        /** Reads one annotation; a bad value or an unknown name throws, naming the annotation. */
        void take(String name, String raw) {
            String value = raw == null ? "" : raw.strip();
            switch (name) {
                case SYNC_PERIOD -> syncPeriod = duration(name, value, HpaControls.SYNC_PERIOD, "30s");
                case FALLBACK_AFTER -> fallbackAfter = duration(name, value, HpaControls.FALLBACK_AFTER, "2m");
                case CPU_INITIALIZATION_PERIOD -> cpuInitialization = duration(name, value, HpaControls.WARM_UP, "2m");
                case INITIAL_READINESS_DELAY -> initialReadiness = duration(name, value, HpaControls.WARM_UP, "60s");
                case FALLBACK_REPLICAS -> fallbackReplicas = replicas(name, value);
                case MODE -> mode = mode(name, value);
                case CADENCE -> cadence = cadence(name, value);
                case SchedulesAnnotation.NAME -> schedules = valueOf(SchedulesAnnotation.parse(raw));
                case PredictAnnotation.NAME -> predict = valueOf(PredictAnnotation.parse(raw));
                default -> {
                    if (!KNOWN.contains(name)) {
                        throw new IllegalArgumentException(name + ": unknown annotation (known under " + PREFIX + ": " + knownShortNames() + ")");
                    }
                }
            }
        }

        /** The fallback needs both its annotations: one given alone (and not refused already) is a problem. */
        void checkFallbackHalves(SortedMap<String, String> ours, List<String> problems) {
            if (fallbackReplicas != null && fallbackAfter == null && !ours.containsKey(FALLBACK_AFTER)) {
                problems.add(FALLBACK_AFTER + ": required with " + FALLBACK_REPLICAS + " (a duration " + HpaControls.FALLBACK_AFTER.asText()
                        + ", e.g. 2m)");
            }
            if (fallbackAfter != null && fallbackReplicas == null && !ours.containsKey(FALLBACK_REPLICAS)) {
                problems.add(FALLBACK_REPLICAS + ": required with " + FALLBACK_AFTER + " (a whole number of at least "
                        + HpaControls.MIN_FALLBACK_REPLICAS + ")");
            }
        }

        HpaControls controls() {
            Fallback fallback = fallbackReplicas == null ? null : new Fallback(fallbackReplicas, fallbackAfter);
            return new HpaControls(syncPeriod, fallback, mode, cpuInitialization, initialReadiness, schedules, predict, cadence);
        }
    }

    private static Duration duration(String name, String value, DurationRange range, String example) {
        String accepted = "must be a duration " + range.asText() + " (e.g. " + example + ")";
        Duration d;
        try {
            d = GoDuration.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + accepted + ", got \"" + value + "\"");
        }
        if (!range.contains(d)) {
            throw new IllegalArgumentException(name + ": " + accepted + ", got \"" + value + "\"");
        }
        return d;
    }

    private static int replicas(String name, String value) {
        String accepted = "must be a whole number of at least " + HpaControls.MIN_FALLBACK_REPLICAS;
        if (!value.matches("[+-]?\\d{1,10}")) {
            throw new IllegalArgumentException(name + ": " + accepted + ", got \"" + value + "\"");
        }
        long n = Long.parseLong(value);
        if (n < HpaControls.MIN_FALLBACK_REPLICAS || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": " + accepted + ", got \"" + value + "\"");
        }
        return (int) n;
    }

    private static Mode mode(String name, String value) {
        Mode m = Mode.of(value);
        if (m == null) {
            throw new IllegalArgumentException(name + ": must be one of " + Mode.choices() + ", got \"" + value + "\"");
        }
        return m;
    }

    static SyncCadence cadence(String name, String value) {
        SyncCadence c = SyncCadence.of(value);
        if (c == null) {
            throw new IllegalArgumentException(name + ": must be one of " + SyncCadence.choices() + ", got \"" + value + "\"");
        }
        return c;
    }

    private static <T> T valueOf(Parsed<T> parsed) {
        if (parsed instanceof Parsed.Invalid<T> invalid) {
            throw new IllegalArgumentException(invalid.message());
        }
        return ((Parsed.Valid<T>) parsed).value();
    }

    private static String knownShortNames() {
        Set<String> shortNames = new TreeSet<>();
        KNOWN.forEach(k -> shortNames.add(k.substring(PREFIX.length())));
        return String.join(", ", shortNames);
    }
}
