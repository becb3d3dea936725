package io.hpacontroller.core.model;

import java.util.Objects;

/**
 * What the replica calculator needs to know about one pod, and nothing more.
 *
 * <p>Times are epoch milliseconds; {@link #NO_TIME} means "not set". {@code containers} holds the
 * regular containers followed by the restartable (sidecar) init containers, whose requests count
 * towards the pod's request as upstream counts them.
 *
 * @param name                name of the pod
 * @param labels              labels of the pod (the ambiguous-selector check needs them)
 * @param phase               status.phase
 * @param ready               status of the Ready condition, {@link ReadyStatus#NONE} when there is none
 * @param readyTransitionTime lastTransitionTime of the Ready condition
 * @param startTime           status.startTime
 * @param deleting            metadata.deletionTimestamp is set
 * @param containers          containers with their requests
 * @param podRequests         pod-level spec.resources.requests, or null when not set
 */
public record PodInfo(String name, Labels labels, PodPhase phase, ReadyStatus ready, long readyTransitionTime, long startTime,
                      boolean deleting, ContainerInfo[] containers, ResourceAmounts podRequests) {

    /** Marker for a time that is not set. */
    public static final long NO_TIME = Long.MIN_VALUE;

    public PodInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(labels, "labels");
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(ready, "ready");
        Objects.requireNonNull(containers, "containers");
    }

    /** A pod without labels (for drivers that select pods themselves). */
    public PodInfo(String name, PodPhase phase, ReadyStatus ready, long readyTransitionTime, long startTime,
                   boolean deleting, ContainerInfo[] containers, ResourceAmounts podRequests) {
        this(name, Labels.EMPTY, phase, ready, readyTransitionTime, startTime, deleting, containers, podRequests);
    }

    /** Running with a True Ready condition: the pods upstream counts as ready for Object and External metrics. */
    public boolean isRunningAndReady() {
        return phase == PodPhase.RUNNING && ready == ReadyStatus.TRUE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PodInfo p && p.name.equals(name) && p.labels.equals(labels) && p.phase == phase && p.ready == ready
                && p.readyTransitionTime == readyTransitionTime && p.startTime == startTime && p.deleting == deleting
                && java.util.Arrays.equals(p.containers, containers) && Objects.equals(p.podRequests, podRequests);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, labels, phase, ready, readyTransitionTime, startTime, deleting, java.util.Arrays.hashCode(containers), podRequests);
    }

    @Override
    public String toString() {
        return "PodInfo[" + name + " " + phase + " ready=" + ready + (deleting ? " deleting" : "") + "]";
    }
}
