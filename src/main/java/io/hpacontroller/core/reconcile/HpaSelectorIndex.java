package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.SelectorOwnership;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The selectors of the HPAs of each namespace, for upstream's AmbiguousSelector check: an HPA must not
 * scale pods that another HPA's target also selects.
 *
 * <p>Upstream checks every pod against every HPA selector under one global lock, which was a
 * bottleneck with thousands of HPAs. Here the selectors are indexed per namespace by their
 * {@code key=value} requirements, so a pod is only tested against the selectors that require one of
 * its own labels (plus the few that require none): the check costs the pods of the target times a
 * handful of candidates, whatever the number of HPAs.
 *
 * <p>As upstream, the driver {@link #register registers} an HPA when its informer delivers it and
 * {@link #forget forgets} it when it is deleted; a reconcile records the selector only of a registered
 * HPA. A reconcile still running when its HPA is deleted therefore cannot bring it back into the index
 * (where it would make other HPAs on the same pods ambiguous).
 */
public final class HpaSelectorIndex implements SelectorOwnership {

    private final Map<String, Namespace> namespaces = new ConcurrentHashMap<>();
    /** The registered HPAs and their namespace. */
    private final Map<String, String> namespaceOf = new ConcurrentHashMap<>();

    private static final class Namespace {
        final Map<String, Selector> selectors = new ConcurrentHashMap<>();
        final Map<String, Set<String>> byRequiredLabel = new ConcurrentHashMap<>();
        final Set<String> withoutRequiredLabel = ConcurrentHashMap.newKeySet();

        void put(String hpaKey, Selector selector) {
            Selector previous = selectors.put(hpaKey, selector);
            if (selector.equals(previous)) {
                return;
            }
            if (previous != null) {
                unindex(hpaKey, previous);
            }
            Map<String, String> required = selector.requiredLabels();
            if (required.isEmpty()) {
                withoutRequiredLabel.add(hpaKey);
            }
            required.forEach((k, v) -> byRequiredLabel.computeIfAbsent(k + "=" + v, x -> ConcurrentHashMap.newKeySet()).add(hpaKey));
        }

        void remove(String hpaKey) {
            Selector previous = selectors.remove(hpaKey);
            if (previous != null) {
                unindex(hpaKey, previous);
            }
        }

        private void unindex(String hpaKey, Selector selector) {
            withoutRequiredLabel.remove(hpaKey);
            selector.requiredLabels().forEach((k, v) -> {
                Set<String> set = byRequiredLabel.get(k + "=" + v);
                if (set != null) {
                    set.remove(hpaKey);
                    if (set.isEmpty()) {
                        byRequiredLabel.remove(k + "=" + v, set);
                    }
                }
            });
        }

        /** The HPAs whose selector matches these labels. */
        void selecting(Labels labels, Set<String> out) {
            List<String> candidates = new ArrayList<>(withoutRequiredLabel);
            for (int i = 0; i < labels.size(); i++) {
                Set<String> set = byRequiredLabel.get(labels.key(i) + "=" + labels.value(i));
                if (set != null) {
                    candidates.addAll(set);
                }
            }
            for (String hpa : candidates) {
                if (!out.contains(hpa)) {
                    Selector s = selectors.get(hpa);
                    if (s != null && s.matches(labels::get)) {
                        out.add(hpa);
                    }
                }
            }
        }
    }

    /**
     * The HPA exists (its informer delivered it): its selector will be recorded by its reconciles. Until
     * the first one, it selects nothing.
     */
    public void register(String hpaKey, String namespace) {
        namespaceOf.putIfAbsent(hpaKey, namespace);
    }

    /** Records the selector of a registered HPA (atomically with {@link #forget}), and finds the HPAs controlling the pods. */
    @Override
    public List<String> controllers(String hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
        Namespace ns = namespaces.computeIfAbsent(namespace, n -> new Namespace());
        namespaceOf.computeIfPresent(hpaKey, (key, registeredIn) -> {
            ns.put(key, selector);
            return registeredIn;
        });
        if (pods.isEmpty()) {
            return Collections.emptyList();
        }
        Set<String> out = new TreeSet<>();
        for (PodInfo pod : pods) {
            ns.selecting(pod.labels(), out);
        }
        return new ArrayList<>(out);
    }

    @Override
    public void forget(String hpaKey) {
        String namespace = namespaceOf.remove(hpaKey);
        if (namespace != null) {
            Namespace ns = namespaces.get(namespace);
            if (ns != null) {
                ns.remove(hpaKey);
            }
        }
    }

    /** Number of registered HPAs. */
    public int size() {
        return namespaceOf.size();
    }
}
