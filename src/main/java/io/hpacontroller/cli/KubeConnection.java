package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.api.RequestRateLimiter;
import io.hpacontroller.controller.ModelKinds;
import io.hpacontroller.input.ParseProblem;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the controller connects, decided and checked before it connects: {@code --kubeconfig}, else
 * {@code $KUBECONFIG}, else {@code ~/.kube/config}, else the pod's service account (fabric8's order).
 * A kubeconfig that does not exist or does not parse, a {@code --context} it does not define, or no
 * cluster at all is a {@link Problem}, never a silent fall-back to another cluster: a typo in
 * {@code --context} must not connect to the current context, which may be production.
 *
 * <p>Every request carries the user agent {@code hpa-controller/VERSION} (audit logs, API priority and fairness).
 * The client never retries a failed request on its own: a failing metrics API must cost one sync
 * (condition and event now, another try next sync), not the client's 20 s of retries; conflicts have
 * their own re-read-and-retry path in the core.
 */
public final class KubeConnection {

    /** Where fabric8 (and every Kubernetes client) finds a pod's service account token. */
    static final Path SERVICE_ACCOUNT_TOKEN = Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH);

    /** The connection settings cannot be used; the message names the file, the context or what is missing. */
    public static final class Problem extends Exception {
        Problem(String message) {
            super(message);
        }
    }

    private final Config config;
    private final String source;

    private KubeConnection(Config config, String source) {
        this.config = config;
        this.source = source;
    }

    /** Resolves the connection from the flags, the environment and the files of this process. */
    public static KubeConnection resolve(Path kubeconfig, String context) throws Problem {
        return resolve(kubeconfig, context, System.getenv(), Path.of(System.getProperty("user.home")), SERVICE_ACCOUNT_TOKEN);
    }

    static KubeConnection resolve(Path kubeconfig, String context, Map<String, String> env, Path home, Path serviceAccountToken)
            throws Problem {
        if (context != null && context.isBlank()) {
            context = null;
        }
        if (kubeconfig != null) {
            requireReadable(kubeconfig, "--kubeconfig " + kubeconfig);
            return fromFiles(List.of(kubeconfig), "--kubeconfig " + kubeconfig, context, false);
        }
        String variable = env.getOrDefault("KUBECONFIG", "");
        if (!variable.isBlank()) {
            List<Path> listed = new ArrayList<>();
            for (String entry : variable.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    listed.add(Path.of(entry));
                }
            }
            List<Path> existing = listed.stream().filter(Files::exists).toList();
            if (existing.isEmpty()) {
                throw new Problem("$KUBECONFIG names no file that exists (" + variable + ")");
            }
            for (Path p : existing) {
                requireReadable(p, "$KUBECONFIG file " + p);
            }
            return fromFiles(existing, "$KUBECONFIG (" + variable + ")", context, existing.size() > 1);
        }
        Path defaultFile = home.resolve(".kube").resolve("config");
        if (Files.exists(defaultFile)) {
            requireReadable(defaultFile, defaultFile.toString());
            return fromFiles(List.of(defaultFile), defaultFile.toString(), context, false);
        }
        boolean inPod = !env.getOrDefault("KUBERNETES_SERVICE_HOST", "").isBlank() && Files.isRegularFile(serviceAccountToken);
        if (!inPod) {
            throw new Problem("no cluster to connect to: no --kubeconfig, $KUBECONFIG is not set, " + defaultFile
                    + " does not exist, and this is not a pod (no $KUBERNETES_SERVICE_HOST and service account token at "
                    + serviceAccountToken + ")");
        }
        if (context != null) {
            throw new Problem("--context " + context + ": there is no kubeconfig to take it from (no --kubeconfig, no $KUBECONFIG, no "
                    + defaultFile + "); in a pod the controller uses its service account");
        }
        return new KubeConnection(Config.autoConfigure(null), "the pod's service account");
    }

    private static void requireReadable(Path file, String what) throws Problem {
        if (!Files.exists(file)) {
            throw new Problem(what + ": no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new Problem(what + ": not a file");
        }
        if (!Files.isReadable(file)) {
            throw new Problem(what + ": not readable by this user");
        }
    }

    /**
     * Reads the kubeconfig files (merged as kubectl does: the first file to set current-context wins, and
     * so does the first definition of a name), checks the context, then lets fabric8 build its config.
     */
    private static KubeConnection fromFiles(List<Path> files, String source, String context, boolean viaEnvironment) throws Problem {
        KubernetesSerialization yaml = new KubernetesSerialization();
        String current = null;
        Map<String, NamedContext> contexts = new LinkedHashMap<>();
        Map<String, NamedCluster> clusters = new LinkedHashMap<>();
        for (Path file : files) {
            io.fabric8.kubernetes.api.model.Config parsed;
            try {
                parsed = yaml.unmarshal(Files.readString(file), io.fabric8.kubernetes.api.model.Config.class);
            } catch (IOException e) {
                throw new Problem(file + ": cannot read it (" + ParseProblem.firstLine(e.getMessage()) + ")");
            } catch (RuntimeException e) {
                throw new Problem(file + " is not a valid kubeconfig: " + ParseProblem.of(e));
            }
            if (parsed == null || listOrEmpty(parsed.getContexts()).isEmpty() && listOrEmpty(parsed.getClusters()).isEmpty()) {
                throw new Problem(file + " is not a kubeconfig: it defines no clusters and no contexts");
            }
            if (current == null && parsed.getCurrentContext() != null && !parsed.getCurrentContext().isBlank()) {
                current = parsed.getCurrentContext();
            }
            listOrEmpty(parsed.getContexts()).forEach(c -> contexts.putIfAbsent(c.getName(), c));
            listOrEmpty(parsed.getClusters()).forEach(c -> clusters.putIfAbsent(c.getName(), c));
        }
        String where = files.size() == 1 ? files.get(0).toString() : String.join(File.pathSeparator, files.stream().map(Path::toString).toList());
        String names = contexts.isEmpty() ? "none" : String.join(", ", contexts.keySet());
        String chosen = context != null ? context : current;
        if (chosen == null) {
            throw new Problem(where + " has no current-context: pass --context (contexts: " + names + ")");
        }
        NamedContext named = contexts.get(chosen);
        if (named == null) {
            throw new Problem((context != null ? "--context " : "current-context ") + chosen + ": no such context in " + where
                    + " (contexts: " + names + ")");
        }
        String clusterName = named.getContext() == null ? null : named.getContext().getCluster();
        NamedCluster cluster = clusterName == null ? null : clusters.get(clusterName);
        if (cluster == null || cluster.getCluster() == null || cluster.getCluster().getServer() == null) {
            throw new Problem("context " + chosen + " in " + where + " names cluster " + clusterName
                    + ", which has no server there");
        }
        Config config;
        try {
            config = viaEnvironment ? Config.autoConfigure(chosen) : Config.fromKubeconfig(chosen, files.get(0).toFile());
        } catch (RuntimeException e) {
            throw new Problem(where + ": context " + chosen + " cannot be used: " + ParseProblem.firstLine(e.getMessage()));
        }
        if (config.getCurrentContext() == null || !chosen.equals(config.getCurrentContext().getName())) {
            throw new Problem(where + ": the client did not select context " + chosen + "; refusing to connect elsewhere");
        }
        return new KubeConnection(config, "context " + chosen + " of " + source);
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    /** Where the settings came from, for the log: "context prod of --kubeconfig /home/me/.kube/config". */
    public String source() {
        return source;
    }

    /** The namespace of the kubeconfig's context (the pod's own in a pod), "default" when it names none: kubectl's default namespace. */
    public String namespace() {
        String ns = config.getNamespace();
        return ns == null || ns.isBlank() ? "default" : ns;
    }

    /** The kubeconfig user's bearer token (a static token, or one an auth provider or exec plugin gave the client), null for none. */
    public String bearerToken(KubernetesClient client) {
        Config used = client.getConfiguration();
        for (String t : new String[] {used.getAutoOAuthToken(), used.getOauthToken(), config.getOauthToken()}) {
            if (t != null && !t.isBlank()) {
                return t.trim();
            }
        }
        return null;
    }

    /** The API server's URL ("https://10.0.0.1:6443"). */
    public String server() {
        return config.getMasterUrl().replaceAll("/+$", "");
    }

    public KubernetesClient connect(Duration requestTimeout, int concurrentRequests) {
        return connect(requestTimeout, concurrentRequests, null);
    }

    /** @param rateLimit the requests' rate limit ({@code --kube-api-qps}, {@code --kube-api-burst}), null for none */
    public KubernetesClient connect(Duration requestTimeout, int concurrentRequests, RequestRateLimiter rateLimit) {
        Config tuned = new ConfigBuilder(config)
                .withUserAgent(ReleaseVersion.userAgent())
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout((int) requestTimeout.toMillis())
                .withConnectionTimeout(5_000)
                .withMaxConcurrentRequests(Math.max(64, concurrentRequests))
                .withMaxConcurrentRequestsPerHost(Math.max(5, concurrentRequests))
                .build();
        KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(tuned).withKubernetesSerialization(ModelKinds.serialization());
        if (rateLimit != null) {
            builder.withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("kube-api-qps", rateLimit));
        }
        return builder.build();
    }
}
