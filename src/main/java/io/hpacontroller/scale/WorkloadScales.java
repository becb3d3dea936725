package io.hpacontroller.scale;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.scale.WorkloadFields.AppsSpec;
import io.hpacontroller.scale.WorkloadFields.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The scale of the built-in workload kinds, read from informers instead of one GET of the scale
 * subresource per reconcile: Deployments, StatefulSets and ReplicaSets (apps/v1) and
 * ReplicationControllers (v1). A kind is watched from the first time it is asked for (an HPA that targets it is
 * delivered or synced); custom resources always go to their scale subresource.
 */
public final class WorkloadScales {

    private record Kind(String apiVersion, String kind) {
    }

    private final KubernetesClient client;
    private final List<String> namespaces;
    private final Map<Kind, Entry<?>> kinds = new ConcurrentHashMap<>();
    private final Set<Kind> supported = Set.of(new Kind("apps/v1", "Deployment"), new Kind("apps/v1", "StatefulSet"),
            new Kind("apps/v1", "ReplicaSet"), new Kind("v1", "ReplicationController"));

    /** One kind: an informer and its store per watched namespace (or one for all namespaces). */
    private static final class Entry<T extends HasMetadata> {
        final Map<String, ScaleTargetStore<T>> stores = new ConcurrentHashMap<>();
        final List<SharedIndexInformer<T>> informers = new ArrayList<>();

        boolean synced() {
            return informers.stream().allMatch(SharedIndexInformer::hasSynced);
        }

        ScaleTarget scale(String namespace, String name) {
            ScaleTargetStore<T> store = stores.get(ALL);
            if (store == null) {
                store = stores.get(namespace);
            }
            return store == null ? null : store.scale(namespace + "/" + name);
        }
    }

    private static final String ALL = "";

    public WorkloadScales(KubernetesClient client, List<String> namespaces) {
        this.client = client;
        this.namespaces = namespaces;
    }

    /** Whether the scale of this kind is read from an informer. */
    boolean covers(String apiVersion, String kind) {
        return supported.contains(kindOf(apiVersion, kind));
    }

    private static Kind kindOf(String apiVersion, String kind) {
        return new Kind(apiVersion == null || apiVersion.isEmpty() ? "v1" : apiVersion, kind);
    }

    /**
     * The cached scale, or null when the kind is not cached (yet), the informer has not synced, or
     * the object is not in the cache.
     */
    ScaleTarget get(String namespace, String apiVersion, String kind, String name) {
        Kind k = kindOf(apiVersion, kind);
        if (!supported.contains(k)) {
            return null;
        }
        Entry<?> e = kinds.computeIfAbsent(k, this::start);
        if (!e.synced()) {
            return null;
        }
        return e.scale(namespace, name);
    }

    /** Whether the informer of every kind started so far (asked for by an HPA) has listed. */
    public boolean startedSynced() {
        return kinds.values().stream().allMatch(Entry::synced);
    }

    /** Whether the informer of this kind (started on first use) has synced: then a target not in its cache does not exist. */
    boolean synced(String apiVersion, String kind) {
        Kind k = kindOf(apiVersion, kind);
        return supported.contains(k) && kinds.computeIfAbsent(k, this::start).synced();
    }

    private Entry<?> start(Kind k) {
        return switch (k.kind()) {
            case "Deployment" -> start(client.resources(WorkloadFields.Deployment.class, WorkloadFields.DeploymentItems.class), WorkloadFields.Deployment::new, WorkloadScales::scale);
            case "StatefulSet" -> start(client.resources(WorkloadFields.StatefulSet.class, WorkloadFields.StatefulSetItems.class), WorkloadFields.StatefulSet::new, WorkloadScales::scale);
            case "ReplicaSet" -> start(client.resources(WorkloadFields.ReplicaSet.class, WorkloadFields.ReplicaSetItems.class), WorkloadFields.ReplicaSet::new, WorkloadScales::scale);
            default -> start(client.resources(WorkloadFields.ReplicationController.class, WorkloadFields.ReplicationControllerItems.class), WorkloadFields.ReplicationController::new,
                    rc -> new ScaleTarget(rc.getSpec() == null || rc.getSpec().replicas() == null ? 1 : rc.getSpec().replicas(),
                            replicas(rc.getStatus()),
                            rc.getSpec() == null || rc.getSpec().selector() == null ? null : Selector.ofLabels(rc.getSpec().selector()).toString(),
                            rc.getMetadata().getResourceVersion()));
        };
    }

    private static int replicas(WorkloadFields.Status status) {
        return status == null || status.replicas() == null ? 0 : status.replicas();
    }

    private static ScaleTarget scale(Workload<AppsSpec> o) {
        AppsSpec spec = o.getSpec();
        return scale(o, spec == null ? null : spec.replicas(), o.getStatus() == null ? null : o.getStatus().replicas(),
                spec == null ? null : spec.selector());
    }

    private static ScaleTarget scale(HasMetadata o, Integer spec, Integer status, LabelSelector selector) {
        String text = null;
        if (selector != null) {
            try {
                text = Selector.fromLabelSelector(selector).toString();
            } catch (IllegalArgumentException e) {
                text = null; // an invalid selector: the reconcile reports the missing selector
            }
        }
        return new ScaleTarget(spec == null ? 1 : spec, status == null ? 0 : status, text, o.getMetadata().getResourceVersion());
    }

    private <T extends HasMetadata> Entry<T> start(MixedOperation<T, ?, ?> op, Supplier<T> shell, Function<T, ScaleTarget> extract) {
        Entry<T> e = new Entry<>();
        if (namespaces.isEmpty()) {
            ScaleTargetStore<T> store = new ScaleTargetStore<>(extract, shell);
            e.stores.put(ALL, store);
            e.informers.add(inform(op.inAnyNamespace(), store));
        } else {
            for (String ns : namespaces) {
                ScaleTargetStore<T> store = new ScaleTargetStore<>(extract, shell);
                e.stores.put(ns, store);
                e.informers.add(inform(op.inNamespace(ns), store));
            }
        }
        return e;
    }

    private static <T extends HasMetadata> SharedIndexInformer<T> inform(Informable<T> informable, ScaleTargetStore<T> store) {
        SharedIndexInformer<T> informer = informable.withLimit(500L).runnableInformer(0);
        informer.exceptionHandler((started, error) -> true); // a failed first list is tried again, as for the pods
        informer.itemStore(store).removeNamespaceIndex();
        informer.start();
        return informer;
    }

    public void stop() {
        kinds.values().forEach(e -> e.informers.forEach(SharedIndexInformer::stop));
    }
}
