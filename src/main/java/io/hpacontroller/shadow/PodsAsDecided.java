package io.hpacontroller.shadow;

import io.hpacontroller.api.Poll;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.PodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The pods of a target as the built-in controller saw them when it decided a rescale, for the shadow's replay of that
 * decision (each shadow sync sets the mode on its thread and clears it).
 * <ul>
 * <li>After a scale-up, the pods it started (a start time in the second of {@code lastScaleTime} or later, or none
 *     yet) are not counted.</li>
 * <li>After a scale-down, the pods it removes cannot be brought back (their metrics may be gone with them): they are
 *     ignored as being deleted, as the built-in controller will ignore them at its next sync. The list waits, up to
 *     {@link #SCALE_DOWN_WAIT}, until the cache holds no more pods that are not being deleted than the built-in
 *     controller asked for: a replay in between read 2 removed pods whose metrics were already gone as pods without
 *     metrics, which a scale-down counts at 100 % of their request (ShadowIT: the shadow wanted 6, the built-in 1).</li>
 * </ul>
 */
final class PodsAsDecided implements PodSource {

    /** How long a replay of a scale-down waits for the removed pods to leave the cache. */
    static final Duration SCALE_DOWN_WAIT = Duration.ofSeconds(5);

    private sealed interface Rescale permits ScaledUp, ScaledDown {
    }

    private record ScaledUp(long at) implements Rescale {
    }

    private record ScaledDown(int replicas) implements Rescale {
    }

    private final PodSource pods;
    private final ThreadLocal<Rescale> rescale = new ThreadLocal<>();

    PodsAsDecided(PodSource pods) {
        this.pods = pods;
    }

    /** The replay of a scale-up made at {@code lastScaleTime} (epoch milliseconds). */
    void beforeScaleUp(long lastScaleTime) {
        rescale.set(new ScaledUp(lastScaleTime));
    }

    /** The replay of a scale-down to {@code replicas}. */
    void afterScaleDown(int replicas) {
        rescale.set(new ScaledDown(replicas));
    }

    /** The replay of a sync that did not rescale: the pods as the cache holds them. */
    void asTheyAre() {
        rescale.remove();
    }

    @Override
    public List<PodInfo> list(String namespace, Selector selector) {
        Rescale r = rescale.get();
        if (r instanceof ScaledDown down) {
            return afterRemoval(namespace, selector, down.replicas());
        }
        List<PodInfo> now = pods.list(namespace, selector);
        if (!(r instanceof ScaledUp up)) {
            return now;
        }
        List<PodInfo> then = new ArrayList<>(now.size());
        for (PodInfo p : now) {
            if (p.startTime() != PodInfo.NO_TIME && p.startTime() < up.at()) {
                then.add(p);
            }
        }
        return then;
    }

    private List<PodInfo> afterRemoval(String namespace, Selector selector, int replicas) {
        try {
            return Poll.until(() -> pods.list(namespace, selector), now -> staying(now) <= replicas, SCALE_DOWN_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return pods.list(namespace, selector);
        }
    }

    private static long staying(List<PodInfo> pods) {
        return pods.stream().filter(p -> !p.deleting()).count();
    }
}
