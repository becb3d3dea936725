package io.hpacontroller.deploy;

import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.KubeControlPlane;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chart installed on a real control plane for the controller under test to run as its
 * ServiceAccount. {@link #shipped}: release {@code hpa-controller} in namespace {@code hpa-controller}
 * with the default values plus {@link #EXTRA_SCALE_TARGETS} (the Widget CRD of the tests), i.e. deploy/
 * plus one rule (RbacIT checks exactly that).
 */
public final class ChartReleases {

    /** The values that let the controller scale example.com Widgets. */
    public static final String EXTRA_SCALE_TARGETS = """
            rbac:
              extraScaleTargets:
                - apiGroup: example.com
                  resources: [widgets]
            """;

    private static final Map<KubeControlPlane, ChartRelease> SHIPPED = new ConcurrentHashMap<>();

    private ChartReleases() {
    }

    /** The shipped release, installed once per control plane. */
    public static ChartRelease shipped(KubeControlPlane plane) {
        return SHIPPED.computeIfAbsent(plane, p -> install(p, HelmChart.RELEASE, HelmChart.NAMESPACE, EXTRA_SCALE_TARGETS));
    }

    /** {@code helm install RELEASE charts/hpa-controller -n NAMESPACE -f values}, identity objects only. */
    public static ChartRelease install(KubeControlPlane plane, String release, String namespace, String valuesYaml) {
        return ChartRelease.install(plane, namespace, HelmChart.objects(release, namespace, valuesYaml));
    }
}
