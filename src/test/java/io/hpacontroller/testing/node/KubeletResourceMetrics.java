package io.hpacontroller.testing.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.testing.kube.ResourceMetrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * metrics.k8s.io for a real node, computed as metrics-server computes it: every {@link #RESOLUTION} it reads
 * the kubelet's {@code /metrics/resource} through the API server's node proxy, keeps each container's last
 * two CPU samples, and reports a pod's CPU as the rate between them (its window is the time between the
 * two samples, its timestamp the newer one) and its memory as the last working set. A pod is reported
 * only when every one of its containers has a complete window (two samples, the counter not gone back,
 * as after a restart); a new pod has none until its second scrape. A failed scrape forgets every sample, as
 * metrics-server forgets the pods of a node it could not scrape.
 */
public final class KubeletResourceMetrics implements ResourceMetrics, AutoCloseable {

    /** metrics-server's default {@code --metric-resolution}. */
    public static final Duration RESOLUTION = Duration.ofSeconds(15);
    private static final Pattern SAMPLE = Pattern.compile(
            "^(container_cpu_usage_seconds_total|container_memory_working_set_bytes)\\{([^}]*)} (\\S+) (\\d+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final KubernetesClient admin;
    private final String node;
    private final ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kubelet-resource-metrics");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger scrapes = new AtomicInteger();
    /** namespace/pod/container -> its last two CPU points; pod -> labels and memory, from the last scrape. */
    private final Map<String, Point[]> cpu = new HashMap<>();
    private Map<String, Map<String, Double>> memoryByPod = Map.of();
    private Map<String, Map<String, String>> labelsByPod = Map.of();
    private volatile String lastError;

    private record Point(double seconds, Instant at) {
    }

    KubeletResourceMetrics(KubernetesClient admin, String node) {
        this.admin = admin;
        this.node = node;
    }

    void start() {
        scraper.scheduleAtFixedRate(this::scrape, 0, RESOLUTION.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Scrapes made so far. */
    public int scrapes() {
        return scrapes.get();
    }

    /** The last scrape's failure, if it failed (the kubelet down: no pod of the node is reported until two scrapes pass). */
    public String lastError() {
        return lastError;
    }

    private void scrape() {
        try {
            String text = admin.raw("/api/v1/nodes/" + node + "/proxy/metrics/resource");
            Map<String, Map<String, String>> labels = new HashMap<>();
            for (Pod p : admin.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems()) {
                labels.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
                        p.getMetadata().getLabels() == null ? Map.of() : Map.copyOf(p.getMetadata().getLabels()));
            }
            record Sample(String pod, String container, double value, Instant at) {
            }
            List<Sample> cpuSamples = new ArrayList<>();
            Map<String, Map<String, Double>> memory = new HashMap<>();
            for (String line : text == null ? List.<String>of() : text.lines().toList()) {
                Matcher m = SAMPLE.matcher(line);
                if (!m.matches()) {
                    continue;
                }
                Map<String, String> l = new HashMap<>();
                Matcher lm = LABEL.matcher(m.group(2));
                while (lm.find()) {
                    l.put(lm.group(1), lm.group(2));
                }
                String pod = l.get("namespace") + "/" + l.get("pod");
                double value = Double.parseDouble(m.group(3));
                if (m.group(1).startsWith("container_cpu")) {
                    cpuSamples.add(new Sample(pod, l.get("container"), value, Instant.ofEpochMilli(Long.parseLong(m.group(4)))));
                } else {
                    memory.computeIfAbsent(pod, k -> new LinkedHashMap<>()).put(l.get("container"), value);
                }
            }
            synchronized (this) {
                Map<String, Point[]> seen = new HashMap<>();
                for (Sample s : cpuSamples) {
                    String key = s.pod() + "/" + s.container();
                    Point[] points = cpu.getOrDefault(key, new Point[2]);
                    Point newest = new Point(s.value(), s.at());
                    if (points[1] == null || newest.at().isAfter(points[1].at())) {
                        points = new Point[] {points[1], newest};
                    }
                    seen.put(key, points);
                }
                cpu.clear();
                cpu.putAll(seen); // containers gone from the kubelet are forgotten
                memoryByPod = memory;
                labelsByPod = labels;
            }
            lastError = null;
        } catch (RuntimeException e) {
            synchronized (this) { // as metrics-server, whose store keeps only the pods of the last batch: a node it cannot scrape has none
                cpu.clear();
                memoryByPod = Map.of();
                labelsByPod = Map.of();
            }
            lastError = e.toString();
        } finally {
            scrapes.incrementAndGet();
        }
    }

    @Override
    public synchronized List<PodSample> samples(String namespace) {
        Map<String, Map<String, Usage>> containers = new LinkedHashMap<>();
        Map<String, Instant> timestamps = new HashMap<>();
        Map<String, Duration> windows = new HashMap<>();
        java.util.Set<String> incomplete = new java.util.HashSet<>();
        cpu.forEach((key, points) -> {
            int cut = key.lastIndexOf('/');
            String pod = key.substring(0, cut);
            if (!pod.startsWith(namespace + "/")) {
                return;
            }
            if (points[0] == null || !points[1].at().isAfter(points[0].at()) || points[1].seconds() < points[0].seconds()) {
                incomplete.add(pod);
                return;
            }
            Duration window = Duration.between(points[0].at(), points[1].at());
            double cores = (points[1].seconds() - points[0].seconds()) / (window.toNanos() / 1e9);
            double memory = memoryByPod.getOrDefault(pod, Map.of()).getOrDefault(key.substring(cut + 1), 0.0);
            containers.computeIfAbsent(pod, k -> new LinkedHashMap<>()).put(key.substring(cut + 1),
                    new Usage(Math.round(cores * 1e9) + "n", Math.round(memory / 1024) + "Ki"));
            timestamps.merge(pod, points[1].at(), (a, b) -> a.isAfter(b) ? a : b);
            windows.merge(pod, window, (a, b) -> a.compareTo(b) > 0 ? a : b);
        });
        List<PodSample> out = new ArrayList<>();
        containers.forEach((pod, usage) -> {
            if (!incomplete.contains(pod) && labelsByPod.containsKey(pod)) {
                out.add(new PodSample(pod.substring(pod.indexOf('/') + 1), labelsByPod.get(pod), timestamps.get(pod), windows.get(pod), usage));
            }
        });
        out.sort(java.util.Comparator.comparing(PodSample::name));
        return out;
    }

    @Override
    public void close() {
        scraper.shutdownNow();
    }
}
