package io.hpacontroller.core;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;

import java.util.Arrays;

/**
 * The key of an HPA (queue, histories, selector index, logs): its API group, namespace and name. Its string form
 * ({@link #toString}, the wire form of logs, labels and {@code /decisions} paths) is "namespace/name" for
 * autoscaling's own (as upstream), "group/namespace/name" for an HPA of another API group with the same schema (a
 * driver hands those to the core with their apiVersion), so HPAs of two APIs with the same namespace and name never
 * share histories or selector entries. The one place the format is written and read.
 */
public record HpaKey(String group, String namespace, String name) implements Comparable<HpaKey> {

    /** The API group whose keys carry no group. */
    public static final String BUILTIN_GROUP = "autoscaling";

    /** The key of an HPA of {@code group}. */
    public static HpaKey of(String group, String namespace, String name) {
        return new HpaKey(group, namespace, name);
    }

    /** The key of an HPA handed to the core (its group from its apiVersion; none is autoscaling). */
    public static HpaKey of(HorizontalPodAutoscaler hpa) {
        if (hpa == null || hpa.getMetadata() == null) {
            return new HpaKey(BUILTIN_GROUP, "<unknown>", "<unknown>");
        }
        String apiVersion = hpa.getApiVersion();
        int slash = apiVersion == null ? -1 : apiVersion.indexOf('/');
        String group = slash < 0 ? BUILTIN_GROUP : apiVersion.substring(0, slash);
        return new HpaKey(group, hpa.getMetadata().getNamespace(), hpa.getMetadata().getName());
    }

    /** The key whose string form is {@code key} (as {@link #toString} writes it). */
    public static HpaKey parse(String key) {
        return new HpaKey(group(key), namespace(key), name(key));
    }

    /** The wire form: "namespace/name", or "group/namespace/name" of a group not autoscaling. */
    @Override
    public String toString() {
        return group.equals(BUILTIN_GROUP) ? namespacedName() : group + "/" + namespacedName();
    }

    /** {@link StableHash#of} the wire form ({@link #toString}), without building it: the ring's and the handover's hash of the key. */
    public long stableHash() {
        long h = group.equals(BUILTIN_GROUP) ? StableHash.FNV_OFFSET : StableHash.fnv1a(StableHash.fnv1a(group), "/");
        return StableHash.mix(StableHash.fnv1a(StableHash.fnv1a(StableHash.fnv1a(h, namespace), "/"), name));
    }

    /** "namespace/name", whatever the group (an informer's store key). */
    public String namespacedName() {
        return namespace + "/" + name;
    }

    /** The group of a key: the first of three segments, else autoscaling. */
    public static String group(String key) {
        return key.chars().filter(c -> c == '/').count() == 2 ? key.substring(0, key.indexOf('/')) : BUILTIN_GROUP;
    }

    /** "namespace/name" of a key of any group. */
    public static String namespacedName(String key) {
        String group = group(key);
        return group.equals(BUILTIN_GROUP) ? key : key.substring(group.length() + 1);
    }

    /** The namespace of a key of any group. */
    public static String namespace(String key) {
        String namespacedName = namespacedName(key);
        int slash = namespacedName.indexOf('/');
        return slash < 0 ? namespacedName : namespacedName.substring(0, slash);
    }

    /** The name of a key of any group ("" when it has none). */
    public static String name(String key) {
        String namespacedName = namespacedName(key);
        int slash = namespacedName.indexOf('/');
        return slash < 0 ? "" : namespacedName.substring(slash + 1);
    }

    /**
     * Keys sort by their wire form. Keys of one group and namespace (the selector index's sets, per namespace) share
     * its prefix, so their names decide, without building the two strings for each comparison.
     */
    @Override
    public int compareTo(HpaKey other) {
        if (group.equals(other.group) && namespace.equals(other.namespace)) {
            return name.compareTo(other.name);
        }
        return toString().compareTo(other.toString());
    }

    /** Whether {@code text} is a key as {@link #toString} writes it: "namespace/name", or "group/namespace/name" of a group not autoscaling. */
    public static boolean isKey(String text) {
        String[] parts = text.split("/", -1);
        return (parts.length == 2 || parts.length == 3 && !parts[0].equals(BUILTIN_GROUP)) && Arrays.stream(parts).noneMatch(String::isEmpty);
    }
}
