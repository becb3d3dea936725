package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.core.controls.HpaControls;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The controls of each HPA, read again only when its annotations under the prefix or its spec (a mirror HPA's
 * fields: the generation moves) changed (the schedules and predict annotations are YAML: not worth parsing at every
 * sync). An HPA without such annotations costs one scan of its annotations per sync.
 */
public final class HpaControlsCache {

    private record Entry(SortedMap<String, String> annotations, Long generation, Parsed<HpaControls> controls) {
    }

    private final Map<HpaKey, Entry> byKey = new ConcurrentHashMap<>();

    /** The controls of the HPA as it is now. */
    public Parsed<HpaControls> of(HpaKey key, HorizontalPodAutoscaler hpa) {
        SortedMap<String, String> ours = ControlAnnotations.ours(hpa.getMetadata().getAnnotations());
        if (ours.isEmpty()) {
            byKey.remove(key);
            return HpaControls.of(hpa);
        }
        Entry e = byKey.get(key);
        Long generation = hpa.getMetadata().getGeneration();
        if (e == null || !e.annotations().equals(ours) || !Objects.equals(e.generation(), generation)) {
            e = new Entry(ours, generation, HpaControls.of(hpa));
            byKey.put(key, e);
        }
        return e.controls();
    }

    /** Whether an update of the HPA changed its controls (annotations do not move metadata.generation). */
    public static boolean changed(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa) {
        return !ControlAnnotations.ours(old.getMetadata().getAnnotations()).equals(ControlAnnotations.ours(hpa.getMetadata().getAnnotations()));
    }

    public void forget(HpaKey key) {
        byKey.remove(key);
    }

    /** HPAs whose parsed controls are held. */
    public int size() {
        return byKey.size();
    }
}
