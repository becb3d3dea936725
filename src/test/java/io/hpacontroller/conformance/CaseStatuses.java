package io.hpacontroller.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.trace.DecisionTrace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The statuses the decision core writes in the reconcile cases: for tests of what the status writers send. */
public final class CaseStatuses {

    /**
     * One status write of a case.
     *
     * @param caseName the case
     * @param hpa      the HPA the case synced (spec as the case gives it)
     * @param status   the status the core wrote
     * @param decided  the decision it came with
     */
    public record Written(String caseName, HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) {
    }

    private CaseStatuses() {
    }

    /** Every status written by the reconcile cases under these directories. */
    public static List<Written> of(List<Path> roots) {
        KubernetesSerialization json = new KubernetesSerialization();
        ConformanceRunner runner = new ConformanceRunner();
        List<Written> out = new ArrayList<>();
        try {
            for (Path file : ConformanceRunner.findCases(roots)) {
                JsonNode c = json.unmarshal(Files.readString(file), JsonNode.class);
                if (!"reconcile".equals(c.path("kind").asText())) {
                    continue;
                }
                ConformanceRunner.CaseSync sync = runner.sync(c);
                for (int i = 0; i < sync.world().statusWrites.size(); i++) {
                    out.add(new Written(c.path("name").asText(file.getFileName().toString()), sync.hpa(), sync.world().statusWrites.get(i),
                            sync.world().statusWriteDecisions.get(i)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
