package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.history.StoredHistory;
import io.hpacontroller.testing.kube.ChartRelease;
import io.hpacontroller.testing.kube.Crds;
import io.hpacontroller.testing.kube.KubeControlPlane;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chart installed on a real control plane for the controller under test to run as its
 * ServiceAccount. {@link #shipped}: release {@code hpa-controller} in namespace {@code hpa-controller}
 * as a full replacement ({@link #FULL_REPLACEMENT}: {@code takeOverBuiltinHpas: true} and the Widget CRD of
 * the tests), i.e. deploy/ plus two rules (RbacIT checks exactly that). {@link #mirror}: the default values
 * (the mirror API only) plus the Widget rule, in release and namespace {@code hpa-mirror}.
 */
public final class ChartReleases {

    /** The values that let the controller scale example.com Widgets. */
    public static final String EXTRA_SCALE_TARGETS = """
            rbac:
              extraScaleTargets:
                - apiGroup: example.com
                  resources: [widgets]
            """;

    /** A full replacement: autoscaling/v2 HPAs taken over, Widgets scalable. */
    public static final String FULL_REPLACEMENT = "takeOverBuiltinHpas: true\n" + EXTRA_SCALE_TARGETS;

    /** The ClusterRole of {@link #shipped} that a scraper of the metrics port is bound to (get on /metrics and /decisions/*). */
    public static final String METRICS_READER = HelmChart.RELEASE + "-metrics-reader";

    /**
     * The token (an hour) of a new ServiceAccount {@code name} of {@code namespace}, bound to {@link #METRICS_READER} when
     * {@code reader} (a ClusterRoleBinding NAMESPACE-NAME, left in place: it names a ServiceAccount deleted with its namespace).
     */
    public static String serviceAccountToken(KubernetesClient admin, String namespace, String name, boolean reader) {
        admin.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
        if (reader) {
            admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(namespace + "-" + name).endMetadata()
                    .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(METRICS_READER).endRoleRef()
                    .addNewSubject().withKind("ServiceAccount").withName(name).withNamespace(namespace).endSubject().build()).create();
        }
        return admin.serviceAccounts().inNamespace(namespace).withName(name)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build()).getStatus().getToken();
    }

    /** The release of {@link #mirror}. */
    public static final String MIRROR_RELEASE = "hpa-mirror";

    private static final Map<KubeControlPlane, ChartRelease> SHIPPED = new ConcurrentHashMap<>();
    private static final Map<KubeControlPlane, ChartRelease> MIRROR = new ConcurrentHashMap<>();

    private ChartReleases() {
    }

    /** The shipped chart as a full replacement, installed once per control plane. */
    public static ChartRelease shipped(KubeControlPlane plane) {
        return SHIPPED.computeIfAbsent(plane, p -> install(p, HelmChart.RELEASE, HelmChart.NAMESPACE, FULL_REPLACEMENT));
    }

    /** The chart's crds/ on a control plane, as {@code helm install} creates them (once per control plane). */
    public static void installCrds(KubeControlPlane plane) {
        MirrorCrd.install(plane);
        installHistoryCrd(plane);
    }

    /** The file of the HorizontalPodAutoscalerHistory CRD in the chart's crds/. */
    public static final java.nio.file.Path HISTORY_CRD = HelmChart.CHART_DIR.resolve("crds")
            .resolve(StoredHistory.PLURAL + "." + StoredHistory.GROUP + ".yaml");

    /** The HorizontalPodAutoscalerHistory CRD (server-side apply, as Helm creates it), once per control plane, established. */
    public static void installHistoryCrd(KubeControlPlane plane) {
        Crds.applyOnce(plane, HISTORY_CRD);
    }

    /** The shipped chart with its default values (the mirror API only; its CRD installed too), once per control plane. */
    public static ChartRelease mirror(KubeControlPlane plane) {
        return MIRROR.computeIfAbsent(plane, p -> {
            installCrds(p);
            return install(p, MIRROR_RELEASE, MIRROR_RELEASE, EXTRA_SCALE_TARGETS);
        });
    }

    /** {@code helm install RELEASE charts/hpa-controller -n NAMESPACE -f values}, identity objects only. */
    public static ChartRelease install(KubeControlPlane plane, String release, String namespace, String valuesYaml) {
        installHistoryCrd(plane); // --persist-history is on by default
        return ChartRelease.install(plane, namespace, HelmChart.objects(release, namespace, valuesYaml));
    }
}
