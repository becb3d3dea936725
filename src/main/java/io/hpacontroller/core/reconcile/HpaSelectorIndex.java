package io.hpacontroller.core.reconcile;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.Labels;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.port.SelectorOwnership;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The selectors of the HPAs of each namespace, for upstream's AmbiguousSelector check: an HPA must not
 * scale pods that another HPA's target also selects.
 *
 * <p>Upstream checks every pod against every HPA selector under one global lock, which was a
 * bottleneck with thousands of HPAs. Here the HPAs of a namespace are grouped by their selector (HPAs on one
 * target share one), and the distinct selectors indexed by their {@code key=value} requirements, so a pod is
 * only tested against the selectors that require one of its own labels (plus the few that require none). An
 * answer counts the HPAs of the matching groups and names the first {@value SelectorOwnership#NAMED_MAX} in key
 * order: a check costs the pods of the target times a handful of distinct selectors, and allocates the same,
 * whatever the number of HPAs (issue 35: 2,000 HPAs on one Deployment made every sync list the 1,999 others).
 *
 * <p>As upstream, the driver {@link #register registers} an HPA when its informer delivers it and
 * {@link #forget forgets} it when it is deleted; a reconcile records the selector only of a registered
 * HPA. A reconcile still running when its HPA is deleted therefore cannot bring it back into the index
 * (where it would make other HPAs on the same pods ambiguous). Unlike upstream, the driver also records the
 * selector of an HPA ahead of its first sync where its target's scale is cached, so that the first syncs count it.
 */
public final class HpaSelectorIndex implements SelectorOwnership {

    private final Map<String, Namespace> namespaces = new ConcurrentHashMap<>();
    /** The registered HPAs and their namespace. */
    private final Map<HpaKey, String> namespaceOf = new ConcurrentHashMap<>();

    /** One namespace's HPAs, grouped by selector; guarded by its own lock (a check holds it for a handful of selector matches). */
    private static final class Namespace {
        final Map<HpaKey, Selector> selectorOf = new HashMap<>();
        /** The HPAs of each distinct selector, in key order. */
        final Map<Selector, TreeSet<HpaKey>> groups = new HashMap<>();
        final Map<String, Set<Selector>> byRequiredLabel = new HashMap<>();
        final Set<Selector> withoutRequiredLabel = new HashSet<>();

        synchronized void put(HpaKey hpaKey, Selector selector) {
            Selector previous = selectorOf.put(hpaKey, selector);
            if (selector.equals(previous)) {
                return;
            }
            if (previous != null) {
                leave(hpaKey, previous);
            }
            groups.computeIfAbsent(selector, s -> {
                Map<String, String> required = s.requiredLabels();
                if (required.isEmpty()) {
                    withoutRequiredLabel.add(s);
                }
                required.forEach((k, v) -> byRequiredLabel.computeIfAbsent(k + "=" + v, x -> new HashSet<>()).add(s));
                return new TreeSet<>();
            }).add(hpaKey);
        }

        synchronized Selector selectorOf(HpaKey hpaKey) {
            return selectorOf.get(hpaKey);
        }

        synchronized void remove(HpaKey hpaKey) {
            Selector previous = selectorOf.remove(hpaKey);
            if (previous != null) {
                leave(hpaKey, previous);
            }
        }

        private void leave(HpaKey hpaKey, Selector selector) {
            TreeSet<HpaKey> group = groups.get(selector);
            if (group == null || !group.remove(hpaKey) || !group.isEmpty()) {
                return;
            }
            groups.remove(selector);
            withoutRequiredLabel.remove(selector);
            selector.requiredLabels().forEach((k, v) -> {
                Set<Selector> set = byRequiredLabel.get(k + "=" + v);
                if (set != null && set.remove(selector) && set.isEmpty()) {
                    byRequiredLabel.remove(k + "=" + v);
                }
            });
        }

        /** The HPAs (of those {@code counted}) whose selector matches at least one of the pods. */
        synchronized Controllers controlling(List<PodInfo> pods, Predicate<HpaKey> counted) {
            Set<Selector> matching = new LinkedHashSet<>();
            for (PodInfo pod : pods) {
                Labels labels = pod.labels();
                withoutRequiredLabel.forEach(s -> addIfMatching(s, labels, matching));
                for (int i = 0; i < labels.size(); i++) {
                    Set<Selector> set = byRequiredLabel.get(labels.key(i) + "=" + labels.value(i));
                    if (set != null) {
                        set.forEach(s -> addIfMatching(s, labels, matching));
                    }
                }
            }
            int count = 0;
            TreeSet<HpaKey> first = new TreeSet<>();
            for (Selector s : matching) {
                TreeSet<HpaKey> group = groups.get(s);
                if (counted == ALL) { // the group's size, and its first keys (in key order, so the rest would be named no earlier)
                    count += group.size();
                    for (HpaKey key : group) {
                        if (!offer(first, key)) {
                            break;
                        }
                    }
                } else {
                    for (HpaKey key : group) {
                        if (counted.test(key)) {
                            count++;
                            offer(first, key);
                        }
                    }
                }
            }
            return new Controllers(count, first.stream().map(HpaKey::toString).toList());
        }

        /** Keeps the key among the first {@value SelectorOwnership#NAMED_MAX} in key order; false when it is not one of them. */
        private static boolean offer(TreeSet<HpaKey> first, HpaKey key) {
            if (first.size() == NAMED_MAX) {
                if (key.compareTo(first.last()) >= 0) {
                    return false;
                }
                first.pollLast();
            }
            first.add(key);
            return true;
        }

        private static void addIfMatching(Selector s, Labels labels, Set<Selector> matching) {
            if (!matching.contains(s) && s.matches(labels::get)) {
                matching.add(s);
            }
        }
    }

    private static final Predicate<HpaKey> ALL = key -> true;

    /**
     * The HPA exists (its informer delivered it): its selector will be recorded by its reconciles. Until
     * the first one, it selects nothing.
     */
    public void register(HpaKey hpaKey, String namespace) {
        namespaceOf.putIfAbsent(hpaKey, namespace);
    }

    /** Records the selector of a registered HPA (atomically with {@link #forget}), and finds the HPAs controlling the pods. */
    @Override
    public Controllers controllers(HpaKey hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
        return controllers(hpaKey, namespace, selector, pods, ALL);
    }

    /** As {@link #controllers(HpaKey, String, Selector, List)}, counting and naming only the HPAs whose key passes {@code counted}. */
    public Controllers controllers(HpaKey hpaKey, String namespace, Selector selector, List<PodInfo> pods, Predicate<HpaKey> counted) {
        Namespace ns = namespaces.computeIfAbsent(namespace, n -> new Namespace());
        namespaceOf.computeIfPresent(hpaKey, (key, registeredIn) -> {
            ns.put(key, selector);
            return registeredIn;
        });
        return pods.isEmpty() ? Controllers.NONE : ns.controlling(pods, counted);
    }

    /** Whether the HPA is registered and this selector is the one recorded for it (so recording it again would change nothing). */
    public boolean records(HpaKey hpaKey, Selector selector) {
        String namespace = namespaceOf.get(hpaKey);
        Namespace ns = namespace == null ? null : namespaces.get(namespace);
        return ns != null && selector.equals(ns.selectorOf(hpaKey));
    }

    @Override
    public void forget(HpaKey hpaKey) {
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
