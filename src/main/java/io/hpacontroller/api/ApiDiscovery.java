package io.hpacontroller.api;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.hpacontroller.core.port.ApiException;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kind to resource, from the API server's discovery documents ({@code /api/v1}, {@code /apis/G/V}),
 * cached per group/version. A kind that is not found triggers one refresh (a CRD may have been
 * installed since), never more than once per {@link #REFRESH_AFTER}.
 */
public final class ApiDiscovery {

    static final Duration REFRESH_AFTER = Duration.ofMinutes(1);

    /** A resource of a group/version: its plural name and whether it has a scale subresource. */
    public record Resource(String group, String version, String name, String kind, boolean namespaced, boolean scalable) {
        /** The path of an object of this resource in a namespace, each name encoded as a segment ({@link PathSegment}). */
        public String objectPath(String namespace, String objectName) {
            return groupVersionPath(group, version) + (namespaced ? "/namespaces/" + PathSegment.encode(namespace) : "") + "/"
                    + PathSegment.encode(name) + "/" + PathSegment.encode(objectName);
        }

        /** {@code resource.group} as the custom metrics API names it ("deployments.apps", "pods"). */
        public String qualifiedName() {
            return group.isEmpty() ? name : name + "." + group;
        }
    }

    private record Cached(APIResourceList list, long fetchedAt) {
    }

    private final KubeApi api;
    private final Clock clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    public ApiDiscovery(KubeApi api, Clock clock) {
        this.api = api;
        this.clock = clock;
    }

    /**
     * The resource of a kind in an apiVersion ("apps/v1", "v1").
     *
     * @throws ApiException when the group/version or the kind does not exist
     */
    public Resource resolve(String apiVersion, String kind) throws ApiException {
        String gv = apiVersion == null || apiVersion.isEmpty() ? "v1" : apiVersion;
        Cached cached = cache.get(gv);
        Resource found = cached == null ? null : find(cached.list, gv, kind);
        if (found != null) {
            return found;
        }
        long now = clock.millis();
        if (cached == null || now - cached.fetchedAt >= REFRESH_AFTER.toMillis()) {
            cached = new Cached(fetch(gv), now);
            cache.put(gv, cached);
            found = find(cached.list, gv, kind);
            if (found != null) {
                return found;
            }
        }
        throw new ApiException.NotFound("no matches for kind \"" + kind + "\" in version \"" + gv + "\"");
    }

    private APIResourceList fetch(String gv) throws ApiException {
        String path;
        try {
            path = gv.contains("/") ? groupVersionPath(gv.substring(0, gv.indexOf('/')), gv.substring(gv.indexOf('/') + 1)) : groupVersionPath("", gv);
        } catch (IllegalArgumentException e) {
            throw new ApiException.NotFound("unexpected GroupVersion string: " + gv);
        }
        try {
            return api.get(path, APIResourceList.class);
        } catch (ApiException.NotFound e) {
            throw new ApiException.NotFound("the server could not find the requested resource (group/version \"" + gv + "\")");
        }
    }

    /** {@code /api/VERSION} or {@code /apis/GROUP/VERSION}, the two encoded as segments (an HPA's apiVersion is the user's text). */
    private static String groupVersionPath(String group, String version) {
        return group.isEmpty() ? "/api/" + PathSegment.encode(version) : "/apis/" + PathSegment.encode(group) + "/" + PathSegment.encode(version);
    }

    private static Resource find(APIResourceList list, String gv, String kind) {
        if (list == null || list.getResources() == null) {
            return null;
        }
        String group = gv.contains("/") ? gv.substring(0, gv.indexOf('/')) : "";
        String version = gv.contains("/") ? gv.substring(gv.indexOf('/') + 1) : gv;
        for (APIResource r : list.getResources()) {
            if (kind.equals(r.getKind()) && r.getName() != null && !r.getName().contains("/")) {
                boolean scalable = false;
                for (APIResource sub : list.getResources()) {
                    if ((r.getName() + "/scale").equals(sub.getName())) {
                        scalable = true;
                        break;
                    }
                }
                return new Resource(group, version, r.getName(), kind, !Boolean.FALSE.equals(r.getNamespaced()), scalable);
            }
        }
        return null;
    }
}
