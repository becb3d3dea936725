package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.file.Path;
import java.util.List;

/**
 * The identity part of a rendered chart installed on a control plane, as {@code helm install} would:
 * the release namespace, the ServiceAccount, the ClusterRole, Role and their bindings, byte for byte
 * what the chart rendered (the Deployment, Service and PodDisruptionBudget are left out: the test runs
 * the controller itself). The controller under test then authenticates as that ServiceAccount.
 */
public final class ChartRelease {

    private final KubeControlPlane plane;
    private final String namespace;
    private final String serviceAccount;

    private ChartRelease(KubeControlPlane plane, String namespace, String serviceAccount) {
        this.plane = plane;
        this.namespace = namespace;
        this.serviceAccount = serviceAccount;
    }

    /** Applies the rendered ServiceAccount and RBAC objects (server-side apply, so a second install is a no-op). */
    public static ChartRelease install(KubeControlPlane plane, String namespace, List<HasMetadata> rendered) {
        KubernetesClient admin = plane.adminClient();
        if (admin.namespaces().withName(namespace).get() == null) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
        }
        String sa = null;
        for (HasMetadata o : rendered) {
            if (o instanceof ServiceAccount || o instanceof ClusterRole || o instanceof ClusterRoleBinding || o instanceof Role || o instanceof RoleBinding) {
                admin.resource(o).fieldManager("helm").forceConflicts().serverSideApply();
            }
            if (o instanceof ServiceAccount) {
                sa = o.getMetadata().getName();
            }
        }
        if (sa == null) {
            throw new IllegalArgumentException("the rendered chart has no ServiceAccount");
        }
        return new ChartRelease(plane, namespace, sa);
    }

    public String namespace() {
        return namespace;
    }

    public String serviceAccount() {
        return serviceAccount;
    }

    /** The API server's name for the ServiceAccount: system:serviceaccount:NS:NAME. */
    public String user() {
        return "system:serviceaccount:" + namespace + ":" + serviceAccount;
    }

    /** A client as the ServiceAccount, built as {@code run} builds its own. Close it. */
    public KubernetesClient client() {
        return plane.clientAsServiceAccount(namespace, serviceAccount);
    }

    /**
     * A kubeconfig as one replica of the controller: a Pod of that name is created in the release
     * namespace (running on the fixture's node, with the ServiceAccount) and the token is bound to it, so
     * the audit log tells this replica's requests apart ({@link AuditEvent#podName()}).
     */
    public Path kubeconfigForPod(String pod) {
        KubernetesClient admin = plane.adminClient();
        admin.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(namespace)
                .addToLabels("app.kubernetes.io/name", "hpa-controller").endMetadata()
                .withNewSpec().withServiceAccountName(serviceAccount).withNodeName(Kubelet.NODE).withTerminationGracePeriodSeconds(0L)
                .withAutomountServiceAccountToken(false).addNewContainer().withName("controller").withImage("ghcr.io/hpa-controller/hpa-controller:test")
                .endContainer().endSpec().build()).create();
        return plane.kubeconfigForServiceAccount(namespace, serviceAccount, pod);
    }
}
