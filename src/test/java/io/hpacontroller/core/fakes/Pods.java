package io.hpacontroller.core.fakes;

import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodMetric;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Pods and their samples for tests: ready, long-running pods unless a test says otherwise. */
public final class Pods {

    /** Long enough ago that no CPU initialization rule applies. */
    public static final long AN_HOUR = 3600_000L;
    public static final long WINDOW = 60_000L;

    private Pods() {
    }

    /** A Running, Ready pod started an hour before {@code now}, one container "app" with a cpu request. */
    public static PodInfo ready(String name, long cpuRequestMilli, long now) {
        return ready(name, Labels.EMPTY, cpuRequestMilli, now);
    }

    /** As {@link #ready(String, long, long)}, with labels. */
    public static PodInfo ready(String name, Labels labels, long cpuRequestMilli, long now) {
        return new PodInfo(name, labels, PodPhase.RUNNING, ReadyStatus.TRUE, now - AN_HOUR, now - AN_HOUR, false,
                new ContainerInfo[]{new ContainerInfo("app", ResourceAmounts.of(Map.of("cpu", cpuRequestMilli)))}, null);
    }

    /** {@code count} ready pods "pod-0".. with the same cpu request. */
    public static List<PodInfo> ready(int count, long cpuRequestMilli, long now) {
        List<PodInfo> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(ready("pod-" + i, cpuRequestMilli, now));
        }
        return out;
    }

    /** A metrics.k8s.io sample: container "app" using this much of a resource. */
    public static PodUsage usage(String pod, String resource, long milli, long timestamp) {
        return new PodUsage(pod, timestamp, WINDOW, List.of(new ContainerUsage("app", ResourceAmounts.of(Map.of(resource, milli)))));
    }

    /** cpu samples for "pod-0".. with these milli-values. */
    public static List<PodUsage> cpuUsage(long timestamp, long... milli) {
        List<PodUsage> out = new ArrayList<>();
        for (int i = 0; i < milli.length; i++) {
            out.add(usage("pod-" + i, "cpu", milli[i], timestamp));
        }
        return out;
    }

    /** Per-pod samples of a custom metric for "pod-0".. */
    public static Map<String, PodMetric> samples(long timestamp, long... milli) {
        Map<String, PodMetric> out = new HashMap<>();
        for (int i = 0; i < milli.length; i++) {
            out.put("pod-" + i, new PodMetric(milli[i], timestamp, WINDOW));
        }
        return out;
    }
}
