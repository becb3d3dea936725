package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/** What the benchmarks on the test fixture share ({@link RealApiBench}, {@code testing.node.InClusterBench}): their options, the load, creates. */
public final class BenchRun {

    private BenchRun() {
    }

    /** The options {@code --NAME VALUE} over their defaults; an unknown option or a missing value is an IllegalArgumentException. */
    public static Map<String, String> options(String[] args, Map<String, String> defaults) {
        Map<String, String> a = new LinkedHashMap<>(defaults);
        for (int i = 0; i < args.length; i++) {
            if (!a.containsKey(args[i]) || i + 1 == args.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + args[i] + " (options: " + new TreeSet<>(a.keySet()) + ")");
            }
            a.put(args[i], args[++i]);
        }
        return a;
    }

    /** Creates the object; one that exists already (a retried create that had gone through) is fine. */
    public static void create(KubernetesClient admin, String ns, HasMetadata object) {
        try {
            admin.resource(object).inNamespace(ns).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    /**
     * Upstream's identity in both benches: namespace {@code ns} with ServiceAccount {@code account}, bound to
     * cluster-admin by the ClusterRoleBinding {@code binding}, so that its requests go through RBAC as the jar's do.
     */
    public static void clusterAdminServiceAccount(KubernetesClient admin, String ns, String account, String binding) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
        admin.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder().withNewMetadata().withName(account).endMetadata().build())
                .create();
        admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(binding).endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName("cluster-admin").endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withName(account).withNamespace(ns).endSubject()
                .build()).create();
    }

    /** The three load averages, "n/a" without /proc. */
    public static String loadAverages() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "n/a";
        }
    }

    /** The 1-minute load average, 0 without /proc. */
    public static double loadAverage1m() {
        try {
            return Double.parseDouble(loadAverages().split(" ")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
