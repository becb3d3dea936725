package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** CustomResourceDefinitions on a control plane: installed as {@code helm install} creates them, and served. */
public final class Crds {

    /** API server URL + CRD file, for each CRD file already applied there. */
    private static final Set<String> APPLIED = ConcurrentHashMap.newKeySet();

    private Crds() {
    }

    /**
     * Applies the CRD of a manifest file (server-side apply with Helm's field manager) once per API server, and
     * waits until it is served.
     */
    public static synchronized void applyOnce(KubeControlPlane plane, Path manifest) {
        String key = plane.url() + " " + manifest.toAbsolutePath();
        if (APPLIED.contains(key)) {
            return;
        }
        CustomResourceDefinition crd;
        try {
            crd = new KubernetesSerialization().unmarshal(Files.readString(manifest), CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        KubernetesClient admin = plane.adminClient();
        admin.resource(crd).fieldManager("helm").forceConflicts().serverSideApply();
        awaitEstablished(admin, crd.getMetadata().getName());
        APPLIED.add(key);
    }

    /** Waits (at most 30 s) until the CRD is Established: its resources are served. */
    public static void awaitEstablished(KubernetesClient admin, String name) {
        admin.apiextensions().v1().customResourceDefinitions().withName(name).waitUntilCondition(c -> c != null && c.getStatus() != null
                && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream()
                .anyMatch(x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())), 30, TimeUnit.SECONDS);
    }
}
