package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.memory.InMemoryCluster;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.MetricsSource.ObjectMetricValue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The world a conformance case describes, loaded into an {@link InMemoryCluster}: the scale, the pods, the metrics APIs
 * (with the failures the case lists in {@code metricErrors}, which fail as a metrics API that is not there), times
 * relative to the case's {@code now}.
 */
final class CaseWorld {

    private final long now;

    private CaseWorld(long now) {
        this.now = now;
    }

    /** The world of case {@code c} at {@code now} (epoch millis). */
    static InMemoryCluster load(JsonNode c, long now) {
        return new CaseWorld(now).fill(c, new InMemoryCluster());
    }

    private InMemoryCluster fill(JsonNode c, InMemoryCluster world) {
        JsonNode s = c.path("scale");
        if (!s.isMissingNode() && !s.isNull()) {
            world.scale = new ScaleTarget(s.path("specReplicas").asInt(), s.path("statusReplicas").asInt(),
                    s.hasNonNull("selector") ? s.get("selector").asText() : null, "1");
        }
        world.pods = pods(c.path("pods"));
        world.podUsage = podUsage(c.path("resourceMetrics"));
        for (Iterator<Map.Entry<String, JsonNode>> it = c.path("podsMetrics").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            world.podsMetrics.put(e.getKey(), podsMetric(e.getValue()));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = c.path("objectMetrics").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNull()) {
                world.objectMetrics.put(e.getKey(), new ObjectMetricValue(Quantities.milliValue(e.getValue().path("value").asText()),
                        at(e.getValue())));
            }
        }
        world.metricTimestamp = now;
        for (Iterator<Map.Entry<String, JsonNode>> it = c.path("externalMetrics").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            List<Long> values = new ArrayList<>();
            e.getValue().path("values").forEach(v -> values.add(Quantities.milliValue(v.asText())));
            world.externalMetrics.put(e.getKey(), values);
            world.externalMetricTimes.put(e.getKey(), at(e.getValue()));
        }
        c.path("metricErrors").forEach(n -> world.failingMetrics.add(n.asText()));
        return world;
    }

    /** The time of a sample, {@code timestampSecondsAgo} before now. */
    private long at(JsonNode sample) {
        return now - sample.path("timestampSecondsAgo").asLong() * 1000L;
    }

    private long ago(JsonNode seconds) {
        return seconds == null || seconds.isNull() || seconds.isMissingNode() ? PodInfo.NO_TIME : now - seconds.asLong() * 1000L;
    }

    private List<PodInfo> pods(JsonNode list) {
        List<PodInfo> out = new ArrayList<>();
        for (JsonNode p : list) {
            List<ContainerInfo> containers = new ArrayList<>();
            for (JsonNode c : p.path("containers")) {
                containers.add(new ContainerInfo(c.path("name").asText(), amounts(c.path("requests"))));
            }
            ResourceAmounts podRequests = p.hasNonNull("podRequests") ? amounts(p.get("podRequests")) : null;
            out.add(new PodInfo(p.path("name").asText(), PodPhase.parse(p.path("phase").asText(null)),
                    ReadyStatus.parse(p.hasNonNull("ready") ? p.get("ready").asText() : null),
                    ago(p.get("readyTransitionSecondsAgo")), ago(p.get("startedSecondsAgo")),
                    p.path("deleting").asBoolean(false), containers.toArray(new ContainerInfo[0]), podRequests));
        }
        return out;
    }

    private static ResourceAmounts amounts(JsonNode node) {
        Map<String, Long> m = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), Quantities.milliValue(e.getValue().asText()));
        }
        return ResourceAmounts.of(m);
    }

    private List<PodUsage> podUsage(JsonNode resourceMetrics) {
        List<PodUsage> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = resourceMetrics.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode m = e.getValue();
            List<ContainerUsage> containers = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> cs = m.path("containers").fields(); cs.hasNext(); ) {
                Map.Entry<String, JsonNode> c = cs.next();
                containers.add(new ContainerUsage(c.getKey(), amounts(c.getValue())));
            }
            out.add(new PodUsage(e.getKey(), at(m), window(m), containers));
        }
        return out;
    }

    private Map<String, PodMetric> podsMetric(JsonNode byPod) {
        Map<String, PodMetric> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = byPod.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode m = e.getValue();
            out.put(e.getKey(), new PodMetric(Quantities.milliValue(m.path("value").asText()), at(m), window(m)));
        }
        return out;
    }

    private static long window(JsonNode sample) {
        return sample.path("windowSeconds").asLong(60) * 1000L;
    }
}
