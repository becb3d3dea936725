package io.hpacontroller.core.port;

import java.util.Objects;

/**
 * Everything one sync talks to, handed to the reconcile step as one value: the target's scale, its pods, the
 * metrics APIs, the HPA's status, its events, the kept history and the selector ownership of the HPAs of a
 * namespace.
 *
 * @param history   keeps each HPA's history for the next leader ({@link HistoryWriter#NONE}: kept in memory only)
 * @param ownership which HPAs control a set of pods ({@link SelectorOwnership#NONE}: a driver that sees one HPA)
 */
public record Ports(ScaleClient scales, PodSource pods, MetricsSource metrics, StatusWriter status, EventRecorder events,
                   HistoryWriter history, SelectorOwnership ownership) {

    public Ports {
        Objects.requireNonNull(scales);
        Objects.requireNonNull(pods);
        Objects.requireNonNull(metrics);
        Objects.requireNonNull(status);
        Objects.requireNonNull(events);
        Objects.requireNonNull(history);
        Objects.requireNonNull(ownership);
    }

    /** The ports of a world that implements them all (a simulated or fake cluster), keeping no history outside memory. */
    public static <W extends ScaleClient & PodSource & MetricsSource & StatusWriter & EventRecorder> Ports of(W world,
                                                                                                           SelectorOwnership ownership) {
        return new Ports(world, world, world, world, world, HistoryWriter.NONE, ownership);
    }

    /** These ports, keeping the history with {@code writer}. */
    public Ports withHistory(HistoryWriter writer) {
        return new Ports(scales, pods, metrics, status, events, writer, ownership);
    }
}
