package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.function.Predicate;

/**
 * A namespace of its own for one test on a shared control plane: its objects, its metrics values and
 * failures, its slice of the audit log. Namespaces are not deleted (without kube-controller-manager's
 * namespace controller they would stay Terminating); the control plane is thrown away after the run.
 */
public final class TestNamespace {

    private final KubeControlPlane plane;
    private final String name;

    TestNamespace(KubeControlPlane plane, String name) {
        this.plane = plane;
        this.name = name;
    }

    public String name() {
        return name;
    }

    public KubeControlPlane plane() {
        return plane;
    }

    /** The shared admin client (do not close it). */
    public KubernetesClient admin() {
        return plane.adminClient();
    }

    /** What the metrics APIs answer in this namespace. */
    public NamespaceMetrics metrics() {
        return plane.metrics().in(name);
    }

    /** Creates the object in this namespace as the admin and returns what the API server stored. */
    public <T extends HasMetadata> T create(T object) {
        object.getMetadata().setNamespace(name);
        return plane.adminClient().resource(object).inNamespace(name).create();
    }

    /** An audit filter for the requests on objects of this namespace. */
    public AuditEvent.Filter audit() {
        return AuditEvent.Filter.all().namespace(name);
    }

    /** How many logged requests on objects of this namespace match. */
    public long count(Predicate<AuditEvent> filter) {
        return plane.audit().count(audit().and(filter)::test);
    }

    @Override
    public String toString() {
        return name;
    }
}
