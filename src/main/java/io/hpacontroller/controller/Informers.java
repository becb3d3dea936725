package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hpacontroller.api.TrimmedStore;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.controls.ControlAnnotations;
import io.hpacontroller.api.Poll;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.pods.PodCache;
import io.hpacontroller.pods.PodFields;
import io.hpacontroller.pods.PodIndex;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@link HorizontalController}'s informers and their caches: autoscaling/v2 HPAs (always), mirror HPAs (when
 * that API is selected), one of each per namespace of {@code --namespace} (or one for all), and the Pods into
 * their {@link PodIndex}es. Mirror HPAs are delivered and looked up as autoscaling/v2 model objects.
 */
final class Informers {

    /** What the HPA informers deliver, with the API each HPA came from. */
    interface HpaEvents {
        void onAdd(HorizontalPodAutoscaler hpa, HpaApi api);

        void onUpdate(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa, HpaApi api);

        void onDelete(HorizontalPodAutoscaler hpa, HpaApi api);
    }

    /**
     * The annotations the mirror HPAs' cache keeps: the controls'; no other is read ({@link TrimmedStore}). The
     * autoscaling/v2 HPAs' cache keeps them all where this controller reconciles them (their status is written with a
     * PUT of the cached object, which would delete what the cache dropped); where it only reads them (the mirror HPAs'
     * AmbiguousSelector check, shadow mode) it keeps the controls' alone, as for the mirror HPAs.
     */
    private static final String KEPT = ControlAnnotations.PREFIX;
    private static final String ALL = null;

    private final KubernetesClient client;
    private final ControllerOptions options;
    private final Map<String, PodIndex> podIndexes;
    private final List<SharedIndexInformer<HorizontalPodAutoscaler>> hpaInformers = new ArrayList<>();
    private final List<SharedIndexInformer<MirrorHpa>> mirrorInformers = new ArrayList<>();
    private final List<SharedIndexInformer<PodFields>> podInformers = new ArrayList<>();

    Informers(KubernetesClient client, ControllerOptions options, Map<String, PodIndex> podIndexes) {
        this.client = client;
        this.options = options;
        this.podIndexes = podIndexes;
    }

    /** Starts the HPA informers. */
    void startHpas(HpaEvents events) {
        ResourceEventHandler<HorizontalPodAutoscaler> builtin = builtinHandler(events);
        ResourceEventHandler<MirrorHpa> mirror = mirrorHandler(events);
        boolean mirrors = options.apis().contains(HpaApi.MIRROR);
        String builtinKept = options.apis().contains(HpaApi.BUILTIN) ? ALL : KEPT;
        if (options.namespaces().isEmpty()) {
            hpaInformers.add(TrimmedStore.inform(client.autoscaling().v2().horizontalPodAutoscalers().inAnyNamespace(), builtinKept, builtin));
            if (mirrors) {
                mirrorInformers.add(TrimmedStore.inform(client.resources(MirrorHpa.class).inAnyNamespace(), KEPT, mirror));
            }
        } else {
            for (String ns : options.namespaces()) {
                hpaInformers.add(TrimmedStore.inform(client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns), builtinKept, builtin));
                if (mirrors) {
                    mirrorInformers.add(TrimmedStore.inform(client.resources(MirrorHpa.class).inNamespace(ns), KEPT, mirror));
                }
            }
        }
    }

    /** The built-in HPAs' handler: each change passed on as it comes. */
    private static ResourceEventHandler<HorizontalPodAutoscaler> builtinHandler(HpaEvents events) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(HorizontalPodAutoscaler hpa) {
                events.onAdd(hpa, HpaApi.BUILTIN);
            }

            @Override
            public void onUpdate(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa) {
                events.onUpdate(old, hpa, HpaApi.BUILTIN);
            }

            @Override
            public void onDelete(HorizontalPodAutoscaler hpa, boolean finalStateUnknown) {
                events.onDelete(hpa, HpaApi.BUILTIN);
            }
        };
    }

    /** The mirror HPAs' handler: each change passed on as the core's HPA. */
    private static ResourceEventHandler<MirrorHpa> mirrorHandler(HpaEvents events) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(MirrorHpa hpa) {
                events.onAdd(hpa.toCore(), HpaApi.MIRROR);
            }

            @Override
            public void onUpdate(MirrorHpa old, MirrorHpa hpa) {
                events.onUpdate(old.toCore(), hpa.toCore(), HpaApi.MIRROR);
            }

            @Override
            public void onDelete(MirrorHpa hpa, boolean finalStateUnknown) {
                events.onDelete(hpa.toCore(), HpaApi.MIRROR);
            }
        };
    }

    /** Starts the Pod informers. */
    void startPods() {
        for (Map.Entry<String, PodIndex> e : podIndexes.entrySet()) {
            var pods = e.getKey().equals(PodCache.ALL) ? client.resources(PodFields.class, PodFields.Items.class).inAnyNamespace()
                    : client.resources(PodFields.class, PodFields.Items.class).inNamespace(e.getKey());
            SharedIndexInformer<PodFields> informer = pods.withLimit(500L).runnableInformer(0);
            // a failed first list is tried again (with the client's backoff), as client-go's reflector does;
            // otherwise the cache would never sync and the workers never start
            informer.exceptionHandler((started, error) -> true);
            informer.itemStore(e.getValue()).removeNamespaceIndex();
            informer.start();
            podInformers.add(informer);
        }
    }

    /** Whether every informer has listed its objects once. */
    boolean isSynced() {
        return hpasSynced() && !podInformers.isEmpty() && podInformers.stream().allMatch(SharedIndexInformer::hasSynced);
    }

    /** Whether the HPA informers have listed the HPAs once. */
    boolean hpasSynced() {
        return !hpaInformers.isEmpty() && hpaInformers.stream().allMatch(SharedIndexInformer::hasSynced)
                && mirrorInformers.stream().allMatch(SharedIndexInformer::hasSynced);
    }

    /** Waits for the informers to sync. */
    boolean awaitSynced(Duration timeout) throws InterruptedException {
        return Poll.until(this::isSynced, timeout);
    }

    /** The cached HPAs of one API. */
    List<HorizontalPodAutoscaler> hpas(HpaApi api) {
        List<HorizontalPodAutoscaler> hpas = new ArrayList<>();
        if (api == HpaApi.MIRROR) {
            mirrorInformers.forEach(i -> i.getStore().list().forEach(m -> hpas.add(m.toCore())));
        } else {
            hpaInformers.forEach(i -> hpas.addAll(i.getStore().list()));
        }
        return hpas;
    }

    /** How many HPAs of one API are cached. */
    int count(HpaApi api) {
        return (api == HpaApi.MIRROR ? mirrorInformers : hpaInformers).stream().mapToInt(i -> i.getStore().list().size()).sum();
    }

    /** The queue keys of the cached HPAs of one API. */
    List<HpaKey> keys(HpaApi api) {
        List<HpaKey> keys = new ArrayList<>();
        for (SharedIndexInformer<?> informer : api == HpaApi.MIRROR ? mirrorInformers : hpaInformers) {
            for (String storeKey : informer.getStore().listKeys()) { // "namespace/name", an autoscaling/v2 HPA's key
                keys.add(HpaKey.of(api.group(), HpaKey.namespace(storeKey), HpaKey.name(storeKey)));
            }
        }
        return keys;
    }

    /** The HPA of this queue key as the informer's cache holds it, null when it holds none. */
    HorizontalPodAutoscaler lookup(HpaKey key) {
        String storeKey = key.namespacedName();
        if (HpaApi.ofKey(key) == HpaApi.MIRROR) {
            for (SharedIndexInformer<MirrorHpa> informer : mirrorInformers) {
                MirrorHpa hpa = informer.getStore().getByKey(storeKey);
                if (hpa != null) {
                    return hpa.toCore();
                }
            }
            return null;
        }
        for (SharedIndexInformer<HorizontalPodAutoscaler> informer : hpaInformers) {
            HorizontalPodAutoscaler hpa = informer.getStore().getByKey(storeKey);
            if (hpa != null) {
                return hpa;
            }
        }
        return null;
    }

    /** Stops every informer. */
    void stop() {
        hpaInformers.forEach(SharedIndexInformer::stop);
        mirrorInformers.forEach(SharedIndexInformer::stop);
        podInformers.forEach(SharedIndexInformer::stop);
    }
}
