package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.controls.MirrorControlFields;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The APIs a HorizontalPodAutoscaler can come from: the built-in {@code autoscaling/v2}, which the
 * built-in HPA controller of kube-controller-manager also reconciles, and the mirror
 * {@code autoscaling.hpa-controller.io/v1} (same spec and status), which only this controller sees.
 * Both are handed to the core as autoscaling/v2 model objects whose {@code apiVersion} says which API
 * they came from.
 *
 * <p>Keys (queue, histories, selector index, logs) are {@code namespace/name} for autoscaling/v2, as
 * upstream's, and {@code group/namespace/name} for the mirror, so an HPA and its mirror twin of the same
 * name never share one; {@link HpaKey} writes and reads them.
 */
public enum HpaApi {
    BUILTIN("autoscaling", "v2"),
    MIRROR(MirrorControlFields.GROUP, "v1");

    private final String group;
    private final String version;

    HpaApi(String group, String version) {
        this.group = group;
        this.version = version;
    }

    public String group() {
        return group;
    }

    public String version() {
        return version;
    }

    /** {@code group/version}, as in an object's apiVersion and in {@code --hpa-apis}. */
    public String apiVersion() {
        return group + "/" + version;
    }

    public String plural() {
        return "horizontalpodautoscalers";
    }

    /** The path of one HPA of this API. */
    public String path(String namespace, String name) {
        return "/apis/" + apiVersion() + "/namespaces/" + PathSegment.encode(namespace) + "/" + plural() + "/" + PathSegment.encode(name);
    }

    /** The API an HPA handed to the core came from (by its apiVersion's group; none is autoscaling/v2). */
    public static HpaApi of(HorizontalPodAutoscaler hpa) {
        String apiVersion = hpa == null ? null : hpa.getApiVersion();
        return apiVersion != null && apiVersion.startsWith(MIRROR.group + "/") ? MIRROR : BUILTIN;
    }

    /** The API of a key: a mirror key has three segments. */
    public static HpaApi ofKey(String key) {
        return HpaKey.group(key).equals(MIRROR.group) ? MIRROR : BUILTIN;
    }

    /** The API of a key: by its group. */
    public static HpaApi ofKey(HpaKey key) {
        return key.group().equals(MIRROR.group) ? MIRROR : BUILTIN;
    }

    /** The key of an HPA of this API ({@link HpaKey#of}). */
    public String key(String namespace, String name) {
        return HpaKey.of(group, namespace, name).toString();
    }

    /**
     * The key written in {@code text} ("namespace/name", or "group/namespace/name" of the mirror API: a {@code /decisions}
     * path), null when it is not the key of an HPA of either API.
     */
    public static String parseKey(String text) {
        return HpaKey.isKey(text) && text.equals(ofKey(text).key(HpaKey.namespace(text), HpaKey.name(text))) ? text : null;
    }

    /** The API named by {@code apiVersion} ("autoscaling/v2"), or null. */
    public static HpaApi parse(String apiVersion) {
        return Arrays.stream(values()).filter(a -> a.apiVersion().equals(apiVersion)).findFirst().orElse(null);
    }

    /** "autoscaling/v2, autoscaling.hpa-controller.io/v1". */
    public static String choices() {
        return Arrays.stream(values()).map(HpaApi::apiVersion).collect(Collectors.joining(", "));
    }
}
