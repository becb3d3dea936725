package io.hpacontroller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hpacontroller.core.model.PodUsage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reading an HPA's resource metrics (a PodMetricsList as metrics-server writes it, {@code pods} pods of two
 * containers): {@link RestMetrics#podUsages} against building the JSON tree alone, which the reading before it
 * built and then walked ({@code tools/bench-core RestMetricsBenchmark -jvmArgsAppend "-XX:TieredStopAtLevel=1"}:
 * the image's compiler).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RestMetricsBenchmark {

    @Param({"5", "100"})
    public int pods;

    private String body;
    private final ObjectMapper mapper = new ObjectMapper();

    @Setup
    public void setUp() {
        StringBuilder sb = new StringBuilder("{\"kind\":\"PodMetricsList\",\"apiVersion\":\"metrics.k8s.io/v1beta1\",\"metadata\":{},\"items\":[");
        for (int i = 0; i < pods; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"metadata\":{\"name\":\"web-7d4b9c8f6d-").append(10_000 + i)
                    .append("\",\"namespace\":\"default\",\"creationTimestamp\":\"2026-11-23T10:00:05Z\",\"labels\":{\"app\":\"web\",\"pod-template-hash\":\"7d4b9c8f6d\"}},")
                    .append("\"timestamp\":\"2026-11-23T10:00:00Z\",\"window\":\"15.012s\",\"containers\":[")
                    .append("{\"name\":\"app\",\"usage\":{\"cpu\":\"").append(250_000_000 + i).append("n\",\"memory\":\"65536Ki\"}},")
                    .append("{\"name\":\"sidecar\",\"usage\":{\"cpu\":\"1234567n\",\"memory\":\"1024Ki\"}}]}");
        }
        body = sb.append("]}").toString();
    }

    @Benchmark
    public List<PodUsage> podUsages() throws Exception {
        return RestMetrics.podUsages(body);
    }

    @Benchmark
    public JsonNode treeOnly() throws Exception {
        return mapper.readTree(body);
    }
}
