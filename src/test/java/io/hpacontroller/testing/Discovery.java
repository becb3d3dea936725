package io.hpacontroller.testing;

import io.fabric8.mockwebserver.http.MockResponse;

import java.util.Map;

/** The discovery documents of a {@link MockCluster}: what kubectl and the controller look up. */
final class Discovery {

    private Discovery() {
    }

    private static String resource(String name, String kind, boolean namespaced, String verbs, String... shortNames) {
        String singular = name.contains("/") ? "" : kind.toLowerCase();
        String shorts = shortNames.length == 0 ? "" : ",\"shortNames\":[\"" + String.join("\",\"", shortNames) + "\"]";
        return "{\"name\":\"" + name + "\",\"singularName\":\"" + singular + "\",\"namespaced\":" + namespaced + ",\"kind\":\"" + kind
                + "\",\"verbs\":[" + verbs + "]" + shorts + "}";
    }

    private static final String ALL = "\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\",\"watch\"";
    private static final String GET_UPDATE = "\"get\",\"patch\",\"update\"";

    private static String list(String gv, String... resources) {
        return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" + gv + "\",\"resources\":[" + String.join(",", resources) + "]}";
    }

    private static String group(String name, String version) {
        return "{\"name\":\"" + name + "\",\"versions\":[{\"groupVersion\":\"" + name + "/" + version + "\",\"version\":\"" + version
                + "\"}],\"preferredVersion\":{\"groupVersion\":\"" + name + "/" + version + "\",\"version\":\"" + version + "\"}}";
    }

    private static final Map<String, String> DOCUMENTS = Map.of(
            "/api", "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1:443\"}]}",
            "/apis", "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[" + String.join(",",
                    group("apps", "v1"), group("autoscaling", "v2"), group("coordination.k8s.io", "v1"),
                    group("metrics.k8s.io", "v1beta1"), group("example.com", "v1"), group("autoscaling.hpa-controller.io", "v1")) + "]}",
            "/api/v1", list("v1",
                    resource("pods", "Pod", true, ALL), resource("events", "Event", true, ALL),
                    resource("namespaces", "Namespace", false, ALL),
                    resource("replicationcontrollers", "ReplicationController", true, ALL),
                    resource("replicationcontrollers/scale", "Scale", true, GET_UPDATE)),
            "/apis/apps/v1", list("apps/v1",
                    resource("deployments", "Deployment", true, ALL, "deploy"), resource("deployments/scale", "Scale", true, GET_UPDATE),
                    resource("statefulsets", "StatefulSet", true, ALL), resource("statefulsets/scale", "Scale", true, GET_UPDATE),
                    resource("replicasets", "ReplicaSet", true, ALL), resource("replicasets/scale", "Scale", true, GET_UPDATE),
                    resource("daemonsets", "DaemonSet", true, ALL)),
            "/apis/autoscaling/v2", list("autoscaling/v2",
                    resource("horizontalpodautoscalers", "HorizontalPodAutoscaler", true, ALL, "hpa"),
                    resource("horizontalpodautoscalers/status", "HorizontalPodAutoscaler", true, GET_UPDATE)),
            "/apis/autoscaling.hpa-controller.io/v1", list("autoscaling.hpa-controller.io/v1",
                    resource("horizontalpodautoscalers", "HorizontalPodAutoscaler", true, ALL, "xhpa"),
                    resource("horizontalpodautoscalers/status", "HorizontalPodAutoscaler", true, GET_UPDATE)),
            "/apis/coordination.k8s.io/v1", list("coordination.k8s.io/v1", resource("leases", "Lease", true, ALL)),
            "/apis/metrics.k8s.io/v1beta1", list("metrics.k8s.io/v1beta1", resource("pods", "PodMetrics", true, "\"get\",\"list\"")),
            "/apis/example.com/v1", list("example.com/v1",
                    resource("widgets", "Widget", true, ALL), resource("widgets/scale", "Scale", true, GET_UPDATE),
                    resource("gadgets", "Gadget", true, ALL)));

    static MockResponse answer(String path) {
        String doc = DOCUMENTS.get(path);
        if (doc == null) {
            return null;
        }
        return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(doc);
    }
}
