package io.hpacontroller.live;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.hpacontroller.core.reconcile.DecisionSummary;
import io.hpacontroller.core.reconcile.DecisionTrace;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A mirror HPA's {@code status.lastDecision}: the decision of the latest sync that wrote the status, in compact
 * form (when, which way, from how many to how many replicas, and {@link DecisionSummary}'s sentence).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class LastDecision {

    @JsonProperty("time")
    private String time;
    @JsonProperty("action")
    private String action;
    @JsonProperty("currentReplicas")
    private Integer currentReplicas;
    @JsonProperty("desiredReplicas")
    private Integer desiredReplicas;
    @JsonProperty("summary")
    private String summary;

    public LastDecision() {
    }

    static LastDecision of(DecisionTrace t) {
        LastDecision d = new LastDecision();
        d.time = Instant.ofEpochMilli(t.time()).truncatedTo(ChronoUnit.SECONDS).toString();
        d.action = switch (t.action()) {
            case SCALE_UP -> "ScaleUp";
            case SCALE_DOWN -> "ScaleDown";
            case NONE -> "None";
        };
        d.currentReplicas = t.currentReplicas() < 0 ? null : t.currentReplicas();
        d.desiredReplicas = t.desiredReplicas() < 0 ? null : t.desiredReplicas();
        d.summary = DecisionSummary.of(t);
        return d;
    }

    public String getTime() {
        return time;
    }

    public void setTime(String time) {
        this.time = time;
    }

    public String getAction() {
        return action;
    }

    public void setAction(String action) {
        this.action = action;
    }

    public Integer getCurrentReplicas() {
        return currentReplicas;
    }

    public void setCurrentReplicas(Integer currentReplicas) {
        this.currentReplicas = currentReplicas;
    }

    public Integer getDesiredReplicas() {
        return desiredReplicas;
    }

    public void setDesiredReplicas(Integer desiredReplicas) {
        this.desiredReplicas = desiredReplicas;
    }

    public String getSummary() {
        return summary;
    }

    public void setSummary(String summary) {
        this.summary = summary;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LastDecision d && Objects.equals(time, d.time) && Objects.equals(action, d.action)
                && Objects.equals(currentReplicas, d.currentReplicas) && Objects.equals(desiredReplicas, d.desiredReplicas)
                && Objects.equals(summary, d.summary);
    }

    @Override
    public int hashCode() {
        return Objects.hash(time, action, currentReplicas, desiredReplicas, summary);
    }

    @Override
    public String toString() {
        return "LastDecision(" + time + ", " + action + ", " + currentReplicas + " -> " + desiredReplicas + ": " + summary + ")";
    }
}
