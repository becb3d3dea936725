package io.hpacontroller.sim.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.SettingNode;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.validation.FieldError;
import io.hpacontroller.core.validation.HpaValidation;
import io.hpacontroller.core.validation.StrictDecoding;
import io.hpacontroller.input.ParseProblem;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads a scenario file (YAML, through fabric8's {@link KubernetesSerialization}). The HPAs in it become real
 * fabric8 autoscaling/v2 objects. Every problem is a {@link ScenarioException} naming the file and the key.
 */
public final class ScenarioReader {

    static final long DEFAULT_STEP = 1000;
    static final MetricsPipeline DEFAULT_RESOURCE_PIPELINE = new MetricsPipeline(15_000, 15_000, 10_000, 0);
    static final MetricsPipeline DEFAULT_CUSTOM_PIPELINE = new MetricsPipeline(30_000, 30_000, 30_000, 0);
    /** Enough to keep the model's memory and the report bounded. */
    static final long MAX_DURATION = 31L * 86_400_000;
    static final long MAX_STEPS = 10_000_000;
    /** The most pods one simulated workload may have (each is modelled one by one). */
    static final int MAX_PODS = 5000;

    private final KubernetesSerialization serialization = new KubernetesSerialization();

    /** A commented scenario to start from ({@code simulate --example}); every key it sets is read here. */
    public static String example() {
        try (InputStream in = ScenarioReader.class.getResourceAsStream("example-scenario.yaml")) {
            return new String(Objects.requireNonNull(in, "example-scenario.yaml is not in the jar").readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads and checks a scenario file. */
    public Scenario read(Path file) throws ScenarioException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ScenarioException(file + ": cannot read the scenario file (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        String fallbackName = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        Path dir = file.toAbsolutePath().getParent();
        try {
            return parse(text, fallbackName, dir);
        } catch (ScenarioException e) {
            throw new ScenarioException(file + ": " + e.getMessage());
        }
    }

    /**
     * Parses scenario text.
     *
     * @param fallbackName the scenario's name when it has none
     * @param dir          where relative paths (the load CSV) are resolved
     */
    public Scenario parse(String text, String fallbackName, Path dir) throws ScenarioException {
        JsonNode root;
        try {
            root = serialization.unmarshal(text, JsonNode.class);
        } catch (RuntimeException e) {
            throw new ScenarioException("not valid YAML: " + ParseProblem.of(e));
        }
        if (root == null || !root.isObject()) {
            throw new ScenarioException("expected a mapping with the keys duration, load, workload and hpas at the top");
        }
        try {
            return parse(SettingNode.ofFile(root), fallbackName, dir);
        } catch (IllegalArgumentException e) { // a key's complaint (SettingNode), its path in the message
            throw new ScenarioException(e.getMessage());
        }
    }

    private Scenario parse(SettingNode file, String fallbackName, Path dir) throws ScenarioException {
        SettingNode top = file.mapping(Set.of("name", "description", "duration", "step",
                "controller", "workload", "metrics", "load", "hpas", "faults"));

        String name = top.child("name").textOr(fallbackName);
        String description = top.child("description").textOr("");
        if (top.child("duration").isMissing()) {
            throw top.child("duration").error("required (how long to simulate, e.g. 10m)");
        }
        long duration = top.child("duration").millisOr(0);
        long step = top.child("step").millisOr(DEFAULT_STEP);
        if (duration <= 0 || duration > MAX_DURATION) {
            throw top.child("duration").error("must be more than 0 and at most 31d");
        }
        if (step <= 0) {
            throw top.child("step").error("must be more than 0");
        }
        if (duration / step > MAX_STEPS) {
            throw top.child("step").error("too small for the duration: at most " + MAX_STEPS + " steps");
        }
        Scenario.Controller controller = controller(top.child("controller"), DEFAULT_CONTROLLER);
        if (top.child("workload").isMissing()) {
            throw top.child("workload").error("required (replicas and containers with their requests)");
        }
        Scenario.Workload workload = workload(top.child("workload"));
        SettingNode metrics = top.child("metrics");
        MetricsPipeline resource = DEFAULT_RESOURCE_PIPELINE;
        MetricsPipeline custom = DEFAULT_CUSTOM_PIPELINE;
        if (!metrics.isMissing()) {
            metrics.mapping(Set.of("resource", "custom"));
            resource = pipeline(metrics.child("resource"), DEFAULT_RESOURCE_PIPELINE);
            custom = pipeline(metrics.child("custom"), DEFAULT_CUSTOM_PIPELINE);
        }
        if (top.child("load").isMissing()) {
            throw top.child("load").error("required (points or csv)");
        }
        LoadTrace load = LoadTraceReader.read(top.child("load"), dir);
        Scenario.SpecSetup base = new Scenario.SpecSetup(controller, workload, resource, custom, List.of());
        List<HorizontalPodAutoscaler> hpas = new ArrayList<>();
        List<Scenario.SpecSetup> setups = new ArrayList<>();
        hpas(top.child("hpas"), base, hpas, setups);
        Scenario.Faults faults = faults(top.child("faults"));
        return new Scenario(name, description, duration, step, controller, workload, resource, custom, load, hpas, faults, setups);
    }

    static final Scenario.Controller DEFAULT_CONTROLLER = new Scenario.Controller(15_000, 0, ControllerConfig.defaults());
    static final Set<String> CONTROLLER_KEYS = Set.of("horizontal-pod-autoscaler-sync-period", "syncPhase", "sync-cadence", "fresh-sync-spread", "horizontal-pod-autoscaler-tolerance",
            "horizontal-pod-autoscaler-downscale-stabilization", "horizontal-pod-autoscaler-cpu-initialization-period",
            "horizontal-pod-autoscaler-initial-readiness-delay", "HPAScaleToZero");
    /** What an HPA spec may change of the scenario's workload: how long its pods take to start. */
    static final Set<String> WORKLOAD_TIMING_KEYS = Set.of("startedAfter", "readyAfter", "startupCpu");

    /** The controller's flags, those not given taken from {@code base}. */
    private static Scenario.Controller controller(SettingNode n, Scenario.Controller base) throws ScenarioException {
        ControllerConfig d = base.config();
        if (n.isMissing()) {
            return base;
        }
        n.mapping(CONTROLLER_KEYS);
        long period = n.child("horizontal-pod-autoscaler-sync-period").millisOr(base.syncPeriodMillis());
        if (period <= 0) {
            throw n.child("horizontal-pod-autoscaler-sync-period").error("must be more than 0");
        }
        long phase = n.child("syncPhase").millisOr(base.syncPhaseMillis());
        double tolerance = n.child("horizontal-pod-autoscaler-tolerance").numberOr(d.tolerance(), 0, 1e9);
        ControllerConfig config = new ControllerConfig(tolerance,
                Duration.ofMillis(n.child("horizontal-pod-autoscaler-cpu-initialization-period").millisOr(d.cpuInitializationPeriod().toMillis())),
                Duration.ofMillis(n.child("horizontal-pod-autoscaler-initial-readiness-delay").millisOr(d.initialReadinessDelay().toMillis())),
                Duration.ofMillis(n.child("horizontal-pod-autoscaler-downscale-stabilization").millisOr(d.downscaleStabilization().toMillis())),
                n.child("HPAScaleToZero").boolOr(d.scaleToZeroEnabled()));
        String cadenceText = n.child("sync-cadence").textOr(base.cadence().text().toLowerCase(java.util.Locale.ROOT));
        SyncCadence cadence = "fresh".equals(cadenceText) ? SyncCadence.FRESH : "spread".equals(cadenceText) ? SyncCadence.SPREAD : null;
        if (cadence == null) {
            throw n.child("sync-cadence").error("must be fresh or spread, got \"" + cadenceText + "\"");
        }
        long spread = n.child("fresh-sync-spread").millisOr(base.freshSpreadMillis());
        if (spread < 0 || spread >= period) {
            throw n.child("fresh-sync-spread").error("must be at least 0 and less than the sync period");
        }
        return new Scenario.Controller(period, phase, config, cadence, spread);
    }

    private static Scenario.Workload workload(SettingNode n) throws ScenarioException {
        n.mapping(Set.of("replicas", "labels", "containers", "startedAfter", "readyAfter", "startupCpu", "capacity",
                "cpuPerDemand", "idleCpu", "memory"));
        int replicas = n.child("replicas").integerOr(1, 0);
        if (replicas > MAX_PODS) {
            throw n.child("replicas").error("the simulator models at most " + MAX_PODS + " pods per workload, got " + replicas);
        }
        Map<String, String> labels = new TreeMap<>();
        SettingNode l = n.child("labels");
        if (l.isMissing()) {
            labels.put("app", "workload");
        } else {
            if (!l.raw().isObject() || l.raw().isEmpty()) {
                throw l.error("expected a non-empty mapping of label names to values");
            }
            for (var it = l.raw().fields(); it.hasNext(); ) {
                var e = it.next();
                labels.put(e.getKey(), l.child(e.getKey()).textOr(""));
            }
        }
        SettingNode cs = n.child("containers");
        if (cs.isMissing()) {
            throw cs.error("required: a list of containers with their requests, e.g. [{name: app, requests: {cpu: 100m}}]");
        }
        List<ContainerInfo> containers = new ArrayList<>();
        Map<String, Map<String, String>> written = new LinkedHashMap<>();
        Set<String> names = new HashSet<>();
        for (SettingNode c : cs.list()) {
            c.mapping(Set.of("name", "requests"));
            String cname = c.child("name").textOr(null);
            if (cname == null || cname.isEmpty()) {
                throw c.child("name").error("required");
            }
            if (!names.add(cname)) {
                throw c.child("name").error("duplicate container name \"" + cname + "\"");
            }
            Map<String, Long> requests = new LinkedHashMap<>();
            Map<String, String> texts = new LinkedHashMap<>();
            SettingNode r = c.child("requests");
            if (!r.isMissing()) {
                if (!r.raw().isObject()) {
                    throw r.error("expected a mapping of resource names to quantities, e.g. {cpu: 100m}");
                }
                for (var it = r.raw().fieldNames(); it.hasNext(); ) {
                    String res = it.next();
                    requests.put(res, quantity(r.child(res)));
                    texts.put(res, Quantities.canonical(r.child(res).textOr(null)));
                }
            }
            containers.add(new ContainerInfo(cname, ResourceAmounts.of(requests)));
            written.put(cname, Collections.unmodifiableMap(texts));
        }
        if (containers.isEmpty()) {
            throw cs.error("at least one container is required");
        }
        Scenario.Workload timing = timing(n, new Scenario.Workload(replicas, labels, List.of(), 0, 5_000, null, null, 1, 0, 0, Map.of()));
        long started = timing.startedAfterMillis();
        long ready = timing.readyAfterMillis();
        Scenario.StartupCpu startup = timing.startupCpu();
        Double capacity = null;
        if (!n.child("capacity").isMissing()) {
            capacity = n.child("capacity").numberOr(0);
            if (capacity <= 0) {
                throw n.child("capacity").error("must be more than 0 (demand one Ready pod can serve)");
            }
        }
        double cpuPerDemand = n.child("cpuPerDemand").numberOr(1, 0, 1e12);
        long idle = n.child("idleCpu").isMissing() ? 0 : quantity(n.child("idleCpu"));
        long memory = n.child("memory").isMissing() ? 0 : quantity(n.child("memory"));
        return new Scenario.Workload(replicas, labels, List.copyOf(containers), started, ready, startup, capacity, cpuPerDemand, idle, memory,
                Collections.unmodifiableMap(written));
    }

    /** The workload with the start-up times of {@code n} ({@link #WORKLOAD_TIMING_KEYS}), those not given taken from {@code base}. */
    private static Scenario.Workload timing(SettingNode n, Scenario.Workload base) throws ScenarioException {
        long started = n.child("startedAfter").millisOr(base.startedAfterMillis());
        long ready = n.child("readyAfter").millisOr(base.readyAfterMillis());
        if (ready < started) {
            throw n.child("readyAfter").error("a pod cannot be Ready before it has started (startedAfter is " + GoDuration.seconds(started) + "s)");
        }
        Scenario.StartupCpu startup = base.startupCpu();
        SettingNode s = n.child("startupCpu");
        if (!s.isMissing()) {
            s.mapping(Set.of("cpu", "duration"));
            if (s.child("cpu").isMissing() || s.child("duration").isMissing()) {
                throw s.error("needs both cpu (a quantity, e.g. 500m) and duration (e.g. 30s)");
            }
            startup = new Scenario.StartupCpu(quantity(s.child("cpu")), s.child("duration").millisOr(0));
        }
        return new Scenario.Workload(base.replicas(), base.labels(), base.containers(), started, ready, startup, base.capacity(),
                base.cpuPerDemand(), base.idleCpuMilli(), base.memoryMilli(), base.requestsWritten());
    }

    private static long quantity(SettingNode n) throws ScenarioException {
        String text = n.textOr(null);
        long milli;
        try {
            milli = Quantities.milliValue(text);
        } catch (RuntimeException e) {
            throw n.error("malformed quantity " + n.describe() + " (expected e.g. 100m, 0.5, 128Mi)");
        }
        if (milli < 0) {
            throw n.error("must not be negative, got " + text);
        }
        return milli;
    }

    private static MetricsPipeline pipeline(SettingNode n, MetricsPipeline d) throws ScenarioException {
        if (n.isMissing()) {
            return d;
        }
        n.mapping(Set.of("scrapeInterval", "window", "delay", "phase"));
        long interval = n.child("scrapeInterval").millisOr(d.intervalMillis());
        long window = n.child("window").millisOr(d.windowMillis());
        if (interval <= 0) {
            throw n.child("scrapeInterval").error("must be more than 0");
        }
        if (window <= 0) {
            throw n.child("window").error("must be more than 0");
        }
        return new MetricsPipeline(interval, window, n.child("delay").millisOr(d.delayMillis()), n.child("phase").millisOr(d.phaseMillis()));
    }

    /** The problems the API server would report for the HPA at {@code h}, on one line, each with its path in the scenario. */
    private static ScenarioException refused(SettingNode h, List<FieldError> errors) {
        return new ScenarioException(String.join("; ", errors.stream().map(e -> h.path() + "." + e).distinct().toList()));
    }

    /**
     * The HPA specs and what each runs with. An entry is an HPA object, or a mapping {@code {hpa: <the HPA>,
     * controller: ..., metrics: ..., workload: ...}} whose other keys override, for that spec only, the scenario's
     * controller flags, metrics pipelines and the workload's start-up ({@link #WORKLOAD_TIMING_KEYS}).
     */
    private void hpas(SettingNode n, Scenario.SpecSetup base, List<HorizontalPodAutoscaler> out, List<Scenario.SpecSetup> setups)
            throws ScenarioException {
        if (n.isMissing()) {
            throw n.error("required: one or more autoscaling/v2 HorizontalPodAutoscaler objects");
        }
        Set<String> names = new HashSet<>();
        for (SettingNode item : n.list()) {
            SettingNode h = item;
            Scenario.SpecSetup setup = base;
            if (item.raw().isObject() && item.raw().has("hpa")) {
                item.mapping(Set.of("hpa", "controller", "metrics", "workload"));
                h = item.child("hpa");
                setup = setup(item, base);
            }
            setups.add(setup);
            if (!h.raw().isObject()) {
                throw h.error("expected a HorizontalPodAutoscaler object, got " + h.describe());
            }
            String apiVersion = h.child("apiVersion").textOr("");
            String kind = h.child("kind").textOr("");
            if (!"autoscaling/v2".equals(apiVersion) || !"HorizontalPodAutoscaler".equals(kind)) {
                throw h.error("expected apiVersion autoscaling/v2 and kind HorizontalPodAutoscaler, got "
                        + (apiVersion.isEmpty() ? "no apiVersion" : apiVersion) + " " + (kind.isEmpty() ? "and no kind" : kind));
            }
            // decoded and validated as the API server would (kubectl apply --validate=strict), before anything runs
            StrictDecoding.Decoded<HorizontalPodAutoscaler> decoded = StrictDecoding.decode(h.raw(), HorizontalPodAutoscaler.class);
            if (!decoded.errors().isEmpty()) {
                throw refused(h, decoded.errors());
            }
            HorizontalPodAutoscaler hpa = decoded.value();
            if (hpa.getMetadata() == null || hpa.getMetadata().getName() == null || hpa.getMetadata().getName().isEmpty()) {
                throw h.child("metadata").child("name").error("required (it labels the HPA's line in the report)");
            }
            if (!names.add(hpa.getMetadata().getName())) {
                throw h.child("metadata").child("name").error("two HPAs are named \"" + hpa.getMetadata().getName() + "\"; give each spec its own name");
            }
            if (hpa.getSpec() == null) {
                throw h.child("spec").error("required");
            }
            if (hpa.getMetadata().getNamespace() == null) {
                hpa.getMetadata().setNamespace("default");
            }
            List<FieldError> invalid = HpaValidation.validate(hpa, new HpaValidation.Options(setup.controller().config().scaleToZeroEnabled()));
            if (!invalid.isEmpty()) {
                throw refused(h, invalid);
            }
            if (HpaControls.of(hpa) instanceof Parsed.Invalid<HpaControls> badControls) {
                // the live controller would stop this HPA with ScalingActive=False InvalidAnnotation: nothing to simulate
                throw h.child("metadata").child("annotations").error(badControls.message());
            }
            if (hpa.getSpec().getMaxReplicas() > MAX_PODS) {
                throw h.child("spec").child("maxReplicas").error("the simulator models at most " + MAX_PODS + " pods per workload, got "
                        + hpa.getSpec().getMaxReplicas());
            }
            if (hpa.getMetadata().getGeneration() == null) {
                hpa.getMetadata().setGeneration(1L);
            }
            hpa.setStatus(null);
            out.add(hpa);
        }
        if (out.isEmpty()) {
            throw n.error("at least one HPA is required");
        }
    }

    /** One spec's setup: the scenario's, with what the entry's controller, metrics and workload keys change. */
    private static Scenario.SpecSetup setup(SettingNode item, Scenario.SpecSetup base) throws ScenarioException {
        List<String> overrides = new ArrayList<>();
        SettingNode c = item.child("controller");
        Scenario.Controller controller = controller(c, base.controller());
        overrides.addAll(given(c));
        SettingNode m = item.child("metrics");
        MetricsPipeline resource = base.resourceMetrics();
        MetricsPipeline custom = base.customMetrics();
        if (!m.isMissing()) {
            m.mapping(Set.of("resource", "custom"));
            resource = pipeline(m.child("resource"), base.resourceMetrics());
            custom = pipeline(m.child("custom"), base.customMetrics());
            for (String which : List.of("resource", "custom")) {
                given(m.child(which)).forEach(g -> overrides.add(which + " metrics " + g));
            }
        }
        SettingNode w = item.child("workload");
        Scenario.Workload workload = base.workload();
        if (!w.isMissing()) {
            w.mapping(WORKLOAD_TIMING_KEYS);
            workload = timing(w, base.workload());
            overrides.addAll(given(w));
        }
        return new Scenario.SpecSetup(controller, workload, resource, custom, overrides);
    }

    /** The keys a mapping gives, with their values as written ("readyAfter 10s"). */
    private static List<String> given(SettingNode n) {
        List<String> out = new ArrayList<>();
        if (n.isMissing() || !n.raw().isObject()) {
            return out;
        }
        for (var it = n.raw().fields(); it.hasNext(); ) {
            var e = it.next();
            out.add(e.getKey() + " " + (e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString()));
        }
        return out;
    }

    private static Scenario.Faults faults(SettingNode n) throws ScenarioException {
        if (n.isMissing()) {
            return Scenario.Faults.NONE;
        }
        n.mapping(Set.of("seed", "metricsFailure", "scaleWriteFailure", "scaleWriteConflict"));
        return new Scenario.Faults(n.child("seed").longOr(1), n.child("metricsFailure").numberOr(0, 0, 1),
                n.child("scaleWriteFailure").numberOr(0, 0, 1), n.child("scaleWriteConflict").numberOr(0, 0, 1));
    }
}
