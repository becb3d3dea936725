package io.hpacontroller.pods;

import io.fabric8.kubernetes.api.model.Quantity;
import io.hpacontroller.api.KubeTime;
import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a Pod as read from the API ({@link PodFields}) into what the calculator needs. Identical container lists
 * (every pod of a Deployment has the same) and label strings are shared between pods, which is what
 * keeps a cached pod well under a kilobyte.
 *
 * <p>A shared container list is counted by the cached pods that use it and dropped with the last
 * one ({@link #release}), so lists that no pod has any more (old requests after a rollout or a
 * VPA update) do not pile up. Not thread-safe: {@link PodIndex} calls it under its write lock.
 */
final class PodCompactor {

    /** A container list and the number of cached pods that share it. */
    private static final class Shared {
        final ContainerInfo[] containers;
        int pods;

        Shared(ContainerInfo[] containers) {
            this.containers = containers;
        }
    }

    private final Map<List<ContainerInfo>, Shared> containerLists = new HashMap<>();

    CachedPod compact(PodFields pod) {
        var meta = pod.getMetadata();
        var status = pod.getStatus();
        PodPhase phase = PodPhase.parse(status == null ? null : status.phase());
        ReadyStatus ready = ReadyStatus.NONE;
        long readyTransition = PodInfo.NO_TIME;
        long start = PodInfo.NO_TIME;
        if (status != null) {
            if (status.conditions() != null) {
                for (PodFields.Condition c : status.conditions()) {
                    if (c != null && "Ready".equals(c.type())) {
                        ready = ReadyStatus.parse(c.status());
                        readyTransition = KubeTime.parse(c.lastTransitionTime(), PodInfo.NO_TIME);
                        break;
                    }
                }
            }
            start = KubeTime.parse(status.startTime(), PodInfo.NO_TIME);
        }
        ContainerInfo[] containers = containers(pod.getSpec());
        ResourceAmounts podRequests = null;
        PodFields.Requirements podLevel = pod.getSpec() == null ? null : pod.getSpec().resources();
        if (podLevel != null && podLevel.requests() != null && !podLevel.requests().isEmpty()) {
            podRequests = Quantities.amounts(podLevel.requests());
        }
        PodInfo info = new PodInfo(meta.getName(), Labels.of(meta.getLabels()), phase, ready, readyTransition, start,
                meta.getDeletionTimestamp() != null, containers, podRequests);
        return new CachedPod(intern(meta.getNamespace()), meta.getResourceVersion(), info);
    }

    private ContainerInfo[] containers(PodFields.Spec spec) {
        if (spec == null) {
            return new ContainerInfo[0];
        }
        List<ContainerInfo> list = new ArrayList<>();
        if (spec.containers() != null) {
            for (PodFields.Container c : spec.containers()) {
                if (c != null) {
                    list.add(container(c));
                }
            }
        }
        if (spec.initContainers() != null) {
            for (PodFields.Container c : spec.initContainers()) {
                // restartable init containers (sidecars) run beside the app and count towards its request
                if (c != null && "Always".equals(c.restartPolicy())) {
                    list.add(container(c));
                }
            }
        }
        Shared shared = containerLists.computeIfAbsent(List.copyOf(list), l -> new Shared(l.toArray(new ContainerInfo[0])));
        shared.pods++;
        return shared.containers;
    }

    /** A pod compacted here left the cache (removed, or replaced by a newer version). */
    void release(CachedPod pod) {
        ContainerInfo[] containers = pod.info().containers();
        List<ContainerInfo> key = Arrays.asList(containers);
        Shared shared = containerLists.get(key);
        if (shared != null && shared.containers == containers && --shared.pods == 0) {
            containerLists.remove(key);
        }
    }

    /** Distinct container lists held for the cached pods. */
    int sharedContainerLists() {
        return containerLists.size();
    }

    private static ContainerInfo container(PodFields.Container c) {
        Map<String, Quantity> requests = c.resources() == null ? null : c.resources().requests();
        return new ContainerInfo(intern(c.name()), Quantities.amounts(requests));
    }

    /** The JVM's string table drops strings nobody references any more, unlike a map of our own. */
    private static String intern(String s) {
        return s == null ? null : s.intern();
    }
}
