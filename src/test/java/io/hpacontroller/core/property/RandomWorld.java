package io.hpacontroller.core.property;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.fakes.FakeCluster;
import io.hpacontroller.core.fakes.Specs;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.reconcile.ControllerConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A random HPA and the world it sees, built from one seed: the same seed always builds the same world.
 * Mostly plausible (what a cluster shows), sometimes hostile (missing, unready, deleted pods; failing,
 * huge, negative or duplicated samples; odd behaviors and histories), always a valid spec.
 */
final class RandomWorld {

    static final long NOW = 1_800_000_000_000L;
    private static final String[] EXTERNAL = {"queue", "lag"};

    final Random random;
    final ControllerConfig config;
    final HorizontalPodAutoscaler hpa;
    final FakeCluster cluster = new FakeCluster();
    final int minReplicas;
    final int maxReplicas;
    final int current;

    private RandomWorld(long seed, boolean insideTolerance) {
        random = new Random(seed);
        config = ControllerConfig.defaults()
                .withTolerance(pick(0.1, 0.0, 0.05, 0.2))
                .withDownscaleStabilization(Duration.ofSeconds(pick(300, 0, 60, 600)))
                .withScaleToZero(random.nextBoolean());
        minReplicas = chance(0.1) ? 0 : 1 + random.nextInt(5);
        maxReplicas = chance(0.02) ? Integer.MAX_VALUE : Math.max(1, minReplicas) + random.nextInt(40);
        current = insideTolerance ? between(Math.max(1, minReplicas), Math.min(maxReplicas, 60)) : randomCurrent();
        cluster.scale = new ScaleTarget(current, insideTolerance || chance(0.8) ? current : random.nextInt(Math.min(current, 1000) + 3), "app=web", "1");
        hpa = Specs.hpa(minReplicas, maxReplicas);
        hpa.getSpec().setBehavior(chance(0.5) ? behavior() : null);
        if (current == 0 && chance(0.5)) {
            hpa.setStatus(scaledToZero());
        }
    }

    /** Any world. */
    static RandomWorld any(long seed) {
        RandomWorld w = new RandomWorld(seed, false);
        w.cluster.pods = w.pods(w.chance(0.03) ? 0 : 1 + w.random.nextInt(Math.min(40, w.current) + 5), false);
        w.hpa.getSpec().setMetrics(w.metrics(false));
        return w;
    }

    /** A calm world: every pod ready and measured, every metric's usage ratio strictly inside the tolerance band. */
    static RandomWorld insideTolerance(long seed) {
        RandomWorld w = new RandomWorld(seed, true);
        w.cluster.pods = w.pods(w.current, true);
        w.hpa.getSpec().setMetrics(w.metrics(true));
        return w;
    }

    /** A world for a sequence of syncs: one Pods metric "load" whose samples {@link #nextLoad} redraws. */
    static RandomWorld forSequence(long seed) {
        RandomWorld w = new RandomWorld(seed, true);
        if (w.hpa.getSpec().getBehavior() == null && w.chance(0.5)) {
            w.hpa.getSpec().setBehavior(w.behavior());
        }
        w.hpa.getSpec().setMetrics(List.of(Specs.podsAverage("load", "10")));
        w.nextLoad(NOW);
        return w;
    }

    /** The pods follow the scale (up to 50 of them, all ready); each reports a new load between 0 and 4 times the target. */
    void nextLoad(long now) {
        int count = Math.min(50, cluster.scale.specReplicas());
        cluster.pods = pods(count, true);
        double level = random.nextDouble() * 4;
        Map<String, PodMetric> samples = new HashMap<>();
        for (PodInfo p : cluster.pods) {
            samples.put(p.name(), new PodMetric((long) (10_000 * level * (0.8 + 0.4 * random.nextDouble())), now, 60_000));
        }
        cluster.podsMetrics.put("load", samples);
    }

    private int randomCurrent() {
        if (chance(0.05)) {
            return 0;
        }
        if (chance(0.1)) {
            return chance(0.5) ? Math.max(0, minReplicas - 1 - random.nextInt(2)) : (int) Math.min(Integer.MAX_VALUE, maxReplicas + 1L + random.nextInt(5));
        }
        return between(Math.max(1, minReplicas), (int) Math.min(maxReplicas, 60));
    }

    // ---- pods ----

    private List<PodInfo> pods(int count, boolean calm) {
        List<PodInfo> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = "pod-" + i;
            PodPhase phase = calm || chance(0.85) ? PodPhase.RUNNING : pick(PodPhase.PENDING, PodPhase.FAILED, PodPhase.SUCCEEDED, PodPhase.UNKNOWN);
            ReadyStatus ready = calm || chance(0.85) ? ReadyStatus.TRUE : pick(ReadyStatus.FALSE, ReadyStatus.NONE, ReadyStatus.UNKNOWN);
            long start = calm ? NOW - 7_200_000 : NOW - random.nextInt(7_200_000);
            long transition = start + (calm ? 10_000 : random.nextInt((int) Math.max(1, NOW - start)));
            boolean deleting = !calm && chance(0.03);
            List<ContainerInfo> containers = new ArrayList<>();
            int n = calm ? 1 : 1 + random.nextInt(3);
            for (int c = 0; c < n; c++) {
                Map<String, Long> requests = new HashMap<>();
                if (calm || chance(0.97)) {
                    requests.put("cpu", calm ? 1000L : 50L + random.nextInt(2000));
                }
                requests.put("memory", (64L + random.nextInt(1024)) * 1024 * 1024 * 1000);
                containers.add(new ContainerInfo(c == 0 ? "app" : "side-" + c, ResourceAmounts.of(requests)));
            }
            out.add(new PodInfo(name, phase, ready, transition, start, deleting, containers.toArray(new ContainerInfo[0]), null));
        }
        return out;
    }

    // ---- metrics ----

    private List<MetricSpec> metrics(boolean calm) {
        List<MetricSpec> specs = new ArrayList<>();
        int n = calm ? 1 + random.nextInt(3) : (chance(0.05) ? 0 : 1 + random.nextInt(3));
        boolean cpu = false;
        boolean memory = false;
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(calm ? 5 : 6);
            // a calm world has one usage per resource: one metric per resource
            if (calm && ((kind == 0 && cpu) || (kind == 4 && memory))) {
                kind = 1;
            }
            cpu |= kind == 0;
            memory |= kind == 4;
            specs.add(switch (kind) {
                case 0 -> cpu(calm);
                case 1 -> podsMetric("qps-" + i, calm);
                case 2 -> objectMetric("rps-" + i, calm);
                case 3 -> externalMetric(EXTERNAL[i % 2] + i, calm, random.nextBoolean());
                case 4 -> memory(calm);
                default -> Specs.podsAverage("broken-" + i, pick("0", "-1", "10")); // invalid target or no data
            });
        }
        return specs;
    }

    private MetricSpec cpu(boolean calm) {
        int target = 10 + random.nextInt(140);
        if (calm) {
            // every request is 1000m: usage of 10 x U milli is U percent of request, exactly
            int u = (int) Math.round(target * ratioInside());
            if (!inside((double) u / target)) {
                u = target;
            }
            calmUsage("cpu", 10L * u);
        } else {
            cluster.podUsage = resourceUsage();
        }
        return Specs.cpuUtilization(target);
    }

    private MetricSpec memory(boolean calm) {
        long target = (64L + random.nextInt(512)) * 1024 * 1024 * 1000;
        if (calm) {
            long average = Math.round(target * ratioInside());
            if (!inside((double) average / target)) {
                average = target;
            }
            calmUsage("memory", average);
        } else if (cluster.podUsage.isEmpty()) {
            cluster.podUsage = resourceUsage();
        }
        return Specs.resourceAverage("memory", target / 1000 / 1024 / 1024 + "Mi");
    }

    private final Map<String, Long> calmUsage = new HashMap<>();

    /** Every pod uses exactly this much of the resource (cpu and memory metrics may both be listed). */
    private void calmUsage(String resource, long milli) {
        calmUsage.put(resource, milli);
        List<PodUsage> usage = new ArrayList<>();
        for (PodInfo p : cluster.pods) {
            usage.add(new PodUsage(p.name(), NOW, 60_000, List.of(new ContainerUsage("app", ResourceAmounts.of(calmUsage)))));
        }
        cluster.podUsage = usage;
    }

    private List<PodUsage> resourceUsage() {
        List<PodUsage> usage = new ArrayList<>();
        for (PodInfo p : cluster.pods) {
            if (chance(0.15)) {
                continue; // missing
            }
            List<ContainerUsage> containers = new ArrayList<>();
            for (ContainerInfo c : p.containers()) {
                Map<String, Long> u = new HashMap<>();
                u.put("cpu", sample(c.requests().get("cpu").orElse(500) * 2));
                u.put("memory", sample(c.requests().get("memory").orElse(1L << 30)));
                containers.add(new ContainerUsage(c.name(), ResourceAmounts.of(u)));
            }
            long timestamp = chance(0.9) ? NOW - random.nextInt(90_000) : NOW + random.nextInt(600_000);
            usage.add(new PodUsage(p.name(), timestamp, 60_000, containers));
            if (chance(0.01)) {
                usage.add(new PodUsage(p.name(), timestamp, 60_000, containers));
            }
        }
        return usage;
    }

    private MetricSpec podsMetric(String name, boolean calm) {
        long target = 1 + random.nextInt(100_000);
        Map<String, PodMetric> samples = new HashMap<>();
        long calmValue = Math.round(target * ratioInside());
        if (!inside((double) calmValue / target)) {
            calmValue = target;
        }
        for (PodInfo p : cluster.pods) {
            if (calm) {
                samples.put(p.name(), new PodMetric(calmValue, NOW, 60_000));
            } else if (chance(0.9)) {
                samples.put(p.name(), new PodMetric(sample(target * 3), NOW - random.nextInt(60_000), 60_000));
            }
        }
        cluster.podsMetrics.put(name, samples);
        return Specs.podsAverage(name, Quantities.formatDecimal(target));
    }

    private MetricSpec objectMetric(String name, boolean calm) {
        long target = 1 + random.nextInt(1_000_000);
        boolean average = random.nextBoolean();
        long value;
        if (calm) {
            long expected = average ? target * cluster.scale.statusReplicas() : target;
            value = Math.round(expected * ratioInside());
            if (!inside((double) value / expected)) {
                value = expected;
            }
        } else {
            value = sample(target * 4);
        }
        if (calm || chance(0.95)) {
            cluster.objectMetrics.put(name, new MetricsSource.ObjectMetricValue(value, NOW));
        }
        MetricSpec spec = Specs.objectValue(name, Quantities.formatDecimal(target));
        if (average) {
            spec.getObject().getTarget().setType("AverageValue");
            spec.getObject().getTarget().setAverageValue(spec.getObject().getTarget().getValue());
            spec.getObject().getTarget().setValue(null);
        }
        return spec;
    }

    private MetricSpec externalMetric(String name, boolean calm, boolean average) {
        long target = 1 + random.nextInt(1_000_000);
        List<Long> values = new ArrayList<>();
        if (calm) {
            long expected = average ? target * cluster.scale.statusReplicas() : target;
            long total = Math.round(expected * ratioInside());
            if (!inside((double) total / expected)) {
                total = expected;
            }
            long first = total / 3;
            values.add(first);
            values.add(total - first);
        } else {
            int n = chance(0.05) ? 0 : 1 + random.nextInt(3);
            for (int i = 0; i < n; i++) {
                values.add(sample(target * 2));
            }
        }
        cluster.externalMetrics.put(name, values);
        if (!calm && chance(0.05)) {
            cluster.failingMetrics.add(name);
        }
        String q = Quantities.formatDecimal(target);
        return average ? Specs.externalAverage(name, q) : Specs.externalValue(name, q);
    }

    /** A sample around {@code scale}: mostly in [0, scale], sometimes 0, huge or negative. */
    private long sample(long scale) {
        double p = random.nextDouble();
        if (p < 0.01) {
            return -1 - random.nextInt(1000);
        }
        if (p < 0.02) {
            return Long.MAX_VALUE - random.nextInt(1000);
        }
        if (p < 0.05) {
            return 0;
        }
        return (long) (random.nextDouble() * Math.max(1, scale));
    }

    // ---- tolerance ----

    private double downTolerance() {
        var b = hpa.getSpec().getBehavior();
        if (b != null && b.getScaleDown() != null && b.getScaleDown().getTolerance() != null) {
            return Quantities.approximate(b.getScaleDown().getTolerance());
        }
        return config.tolerance();
    }

    private double upTolerance() {
        var b = hpa.getSpec().getBehavior();
        if (b != null && b.getScaleUp() != null && b.getScaleUp().getTolerance() != null) {
            return Quantities.approximate(b.getScaleUp().getTolerance());
        }
        return config.tolerance();
    }

    /** A usage ratio well inside the band [1 - down, 1 + up]. */
    private double ratioInside() {
        double down = downTolerance() * 0.9;
        double up = upTolerance() * 0.9;
        return 1 - down + random.nextDouble() * (down + up);
    }

    private boolean inside(double ratio) {
        return 1 - downTolerance() <= ratio && ratio <= 1 + upTolerance();
    }

    // ---- behavior and history ----

    private HorizontalPodAutoscalerBehavior behavior() {
        return new HorizontalPodAutoscalerBehavior(chance(0.2) ? null : rules(true), chance(0.2) ? null : rules(false));
    }

    private HPAScalingRules rules(boolean up) {
        List<HPAScalingPolicy> policies = new ArrayList<>();
        int n = chance(0.2) ? 0 : 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            boolean pods = random.nextBoolean();
            policies.add(new HPAScalingPolicy(pick(15, 30, 60, 120, 600), pods ? "Pods" : "Percent",
                    pods ? 1 + random.nextInt(20) : 1 + random.nextInt(up ? 500 : 100)));
        }
        String select = chance(0.5) ? null : pick("Max", "Min", "Disabled");
        Integer window = chance(0.4) ? null : pick(0, 15, 60, 300, 600);
        Quantity tolerance = chance(0.8) ? null : new Quantity(pick("0", "50m", "150m"));
        return new HPAScalingRules(policies, select, window, tolerance);
    }

    /** Seeds the history of this world's HPA: half the time never seen, else random recommendations and scale events. */
    void seedHistory(HpaHistory history) {
        Random r = new Random(random.nextLong());
        if (r.nextBoolean()) {
            return;
        }
        List<HpaHistory.Recommendation> recs = new ArrayList<>();
        int n = r.nextInt(20);
        for (int i = 0; i < n; i++) {
            recs.add(new HpaHistory.Recommendation(r.nextInt((int) Math.min(200, maxReplicas + 10L)), NOW - r.nextInt(3_600_000)));
        }
        history.setRecommendations(recs);
        for (int i = r.nextInt(6); i > 0; i--) {
            history.addScaleEvent(r.nextBoolean(), 1 + r.nextInt(20), NOW - r.nextInt(1_800_000));
        }
    }

    private static HorizontalPodAutoscalerStatus scaledToZero() {
        HorizontalPodAutoscalerStatus s = new HorizontalPodAutoscalerStatus();
        s.setConditions(new ArrayList<>(List.of(new HorizontalPodAutoscalerCondition("2026-01-01T00:00:00Z",
                "the HPA controller scaled the workload to zero", "ScaledToZero", "True", "ScaledToZero"))));
        return s;
    }

    // ---- helpers ----

    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    private int between(int lo, int hi) {
        return hi <= lo ? lo : lo + random.nextInt(hi - lo + 1);
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[random.nextInt(options.length)];
    }

    String describe() {
        return "min=" + minReplicas + " max=" + maxReplicas + " current=" + current + " scale=" + cluster.scale
                + " pods=" + cluster.pods.size() + " config=" + config + "\nspec.metrics=" + hpa.getSpec().getMetrics()
                + "\nspec.behavior=" + hpa.getSpec().getBehavior();
    }
}
