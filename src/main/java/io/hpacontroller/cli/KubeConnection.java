package io.hpacontroller.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How the controller connects: fabric8's standard configuration (in-cluster service account, else
 * KUBECONFIG or ~/.kube/config), or an explicit kubeconfig and context.
 *
 * <p>Every request carries the user agent {@code hpa-controller/VERSION} (audit logs, API priority and fairness).
 * The client never retries a failed request on its own: a failing metrics API must cost one sync
 * (condition and event now, another try next sync), not the client's 20 s of retries; conflicts have
 * their own re-read-and-retry path in the core.
 */
public final class KubeConnection {

    private KubeConnection() {
    }

    public static KubernetesClient connect(Path kubeconfig, String context, Duration requestTimeout, int concurrentRequests) throws IOException {
        Config base;
        if (kubeconfig != null) {
            if (!Files.isReadable(kubeconfig)) {
                throw new IOException("cannot read kubeconfig " + kubeconfig);
            }
            base = Config.fromKubeconfig(context, kubeconfig.toFile());
        } else {
            base = Config.autoConfigure(context);
        }
        Config config = new ConfigBuilder(base)
                .withUserAgent(ReleaseVersion.userAgent())
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout((int) requestTimeout.toMillis())
                .withConnectionTimeout(5_000)
                .withMaxConcurrentRequests(Math.max(64, concurrentRequests))
                .withMaxConcurrentRequestsPerHost(Math.max(5, concurrentRequests))
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
