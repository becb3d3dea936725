package io.hpacontroller.hpa;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.hpacontroller.core.trace.DecisionSummary;
import io.hpacontroller.core.trace.DecisionTrace;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A mirror HPA's {@code status.lastDecision}: the decision of the latest sync that wrote the status, in compact
 * form (when, which way, from how many to how many replicas, and {@link DecisionSummary}'s sentence).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LastDecision(@JsonProperty("time") String time, @JsonProperty("action") String action,
                           @JsonProperty("currentReplicas") Integer currentReplicas, @JsonProperty("desiredReplicas") Integer desiredReplicas,
                           @JsonProperty("summary") String summary) {

    static LastDecision of(DecisionTrace t) {
        String action = switch (t.action()) {
            case SCALE_UP -> "ScaleUp";
            case SCALE_DOWN -> "ScaleDown";
            case NONE -> "None";
        };
        return new LastDecision(Instant.ofEpochMilli(t.time()).truncatedTo(ChronoUnit.SECONDS).toString(), action,
                t.currentReplicas() < 0 ? null : t.currentReplicas(), t.desiredReplicas() < 0 ? null : t.desiredReplicas(), DecisionSummary.of(t));
    }
}
