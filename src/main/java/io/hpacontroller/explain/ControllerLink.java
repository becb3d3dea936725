package io.hpacontroller.explain;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.api.TransportFailure;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.validation.NameSyntax;
import io.hpacontroller.ops.DecisionsJson;
import io.hpacontroller.ops.HpaDecisions;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * How {@code explain} reaches the running controller's {@code /decisions/NAMESPACE/NAME}: at a URL the user
 * gives ({@code --controller-url}, e.g. after {@code kubectl port-forward}; over HTTPS with the bearer token of
 * {@code --controller-token}, which the controller has the API server review), or else through the API server: the
 * Lease names the leader's pod, and the API server's pod proxy reaches that pod's metrics port (what
 * {@code kubectl get --raw} would do; it needs {@code get} on the Lease and on {@code pods/proxy} in the
 * controller's namespace). The proxy carries no credentials to the pod, so it serves only a controller run with
 * {@code --metrics-secure=false}; for one that serves HTTPS (the default), the answer says how to port-forward
 * instead. The leader, not any pod behind the Service: a standby remembers nothing.
 */
public final class ControllerLink {

    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final int DEFAULT_METRICS_PORT = 8080;

    /**
     * Where to look.
     *
     * @param url       the controller's metrics address (http://HOST:PORT or https://HOST:PORT), or null to go through the API server
     * @param namespace the controller's namespace (where its Lease is)
     * @param lease     the Lease's name
     * @param token     the bearer token sent to an https {@code url}, null for none
     */
    public record Target(URI url, String namespace, String lease, String token) {
    }

    /**
     * What the controller said, and through what; or why nothing was learned.
     *
     * @param decisions the controller's answer, null when there is none
     * @param via       where it came from
     * @param unknown   why the HPA's history is unknown, null when it is known
     */
    record Answer(HpaDecisions decisions, String via, String unknown) {
        boolean known() {
            return unknown == null;
        }
    }

    private ControllerLink() {
    }

    /**
     * @param api the API the Lease and the leader's pod are read through
     * @param key the HPA's key ({@code NAMESPACE/NAME}, a mirror HPA's {@code autoscaling.hpa-controller.io/NAMESPACE/NAME}),
     *            the path of its decisions
     */
    static Answer fetch(KubernetesClient client, KubeApi api, Target target, String key) {
        String path = "/decisions/" + Arrays.stream(key.split("/")).map(PathSegment::encode).collect(Collectors.joining("/"));
        if (target.url() != null) {
            String base = target.url().toString().replaceAll("/+$", "");
            return answer(direct(base + path, target.token()), "the controller at " + base, key);
        }
        Lease lease;
        try {
            lease = api.get("/apis/coordination.k8s.io/v1/namespaces/" + PathSegment.encode(target.namespace()) + "/leases/" + PathSegment.encode(target.lease()), Lease.class);
        } catch (ApiException.NotFound e) {
            lease = null;
        } catch (ApiException e) {
            return unknown("cannot read the Lease " + target.namespace() + "/" + target.lease() + ": " + e.getMessage());
        }
        if (lease == null || lease.getSpec() == null) {
            return unknown("no Lease " + target.namespace() + "/" + target.lease() + ": the controller is not running there "
                    + "(see --controller-namespace, --controller-lease, --controller-url)");
        }
        String holder = lease.getSpec().getHolderIdentity();
        if (holder == null || holder.isEmpty()) {
            return unknown("the Lease " + target.namespace() + "/" + target.lease() + " has no holder: no controller is leading");
        }
        if (!NameSyntax.dns1123Subdomain(holder).isEmpty()) {
            return unknown("the leader " + holder + " (Lease " + target.namespace() + "/" + target.lease() + ") is not a pod name:"
                    + " give the controller's address with --controller-url");
        }
        Pod pod;
        try {
            pod = api.get("/api/v1/namespaces/" + PathSegment.encode(target.namespace()) + "/pods/" + PathSegment.encode(holder), Pod.class);
        } catch (ApiException.NotFound e) {
            pod = null;
        } catch (ApiException e) {
            return unknown("cannot read the leader's pod " + target.namespace() + "/" + holder + ": " + e.getMessage());
        }
        if (pod == null) {
            return unknown("the leader " + holder + " is not a pod in " + target.namespace() + " (a controller outside the cluster?): "
                    + "give its address with --controller-url");
        }
        int port = metricsPort(pod);
        if (!servesPlainHttp(pod)) {
            return unknown("the leader " + holder + " serves /decisions over HTTPS to the callers the API server authorizes (--metrics-secure),"
                    + " and the API server's pod proxy carries no credentials: run kubectl -n " + target.namespace() + " port-forward pod/"
                    + holder + " " + port + " and give --controller-url https://localhost:" + port + " --controller-token TOKEN (e.g. $(kubectl -n "
                    + target.namespace() + " create token SERVICE_ACCOUNT) of a ServiceAccount bound to the chart's ClusterRole RELEASE-metrics-reader)");
        }
        String proxy = "/api/v1/namespaces/" + PathSegment.encode(target.namespace()) + "/pods/" + PathSegment.encode(holder) + ":" + port + "/proxy" + path;
        return answer(throughApiServer(client, proxy), "the leader " + holder + " (Lease " + target.namespace() + "/" + target.lease()
                + "), through the API server's pod proxy", key);
    }

    /** The container port named "metrics", else the chart's default. */
    private static int metricsPort(Pod pod) {
        if (pod.getSpec() != null && pod.getSpec().getContainers() != null) {
            for (Container c : pod.getSpec().getContainers()) {
                if (c.getPorts() != null) {
                    for (ContainerPort p : c.getPorts()) {
                        if ("metrics".equals(p.getName()) && p.getContainerPort() != null) {
                            return p.getContainerPort();
                        }
                    }
                }
            }
        }
        return DEFAULT_METRICS_PORT;
    }

    /** Whether the pod's controller serves its metrics port in plain HTTP: {@code --metrics-secure=false} in its arguments or environment. */
    static boolean servesPlainHttp(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
            return false;
        }
        for (Container c : pod.getSpec().getContainers()) {
            List<String> args = c.getArgs() == null ? List.of() : c.getArgs();
            for (int i = 0; i < args.size(); i++) {
                if (args.get(i).equals("--metrics-secure=false") || args.get(i).equals("--metrics-secure") && i + 1 < args.size()
                        && args.get(i + 1).equals("false")) {
                    return true;
                }
            }
            if (c.getEnv() != null && c.getEnv().stream().anyMatch(e -> "HPA_CONTROLLER_METRICS_SECURE".equals(e.getName()) && "false".equals(e.getValue()))) {
                return true;
            }
        }
        return false;
    }

    private record Reply(int code, String body, String failure) {
    }

    /**
     * The user's own credentials are never sent to the controller; {@code token}, given for it, goes only over HTTPS. The
     * certificate of a controller on this machine (a port-forward's end) is not checked: the controller's is usually
     * self-signed, and the tunnel already reached the pod the Lease named; elsewhere the JDK's trusted CAs check it.
     */
    private static Reply direct(String url, String token) {
        try {
            URI uri = URI.create(url);
            HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(TIMEOUT);
            if ("https".equals(uri.getScheme()) && isLoopback(uri.getHost())) {
                client.sslContext(trustingTls());
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET();
            if (token != null && "https".equals(uri.getScheme())) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r = client.build().send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body(), null);
        } catch (IOException | IllegalArgumentException | GeneralSecurityException e) {
            return new Reply(0, null, "GET " + url + ": " + TransportFailure.describe(e, URI.create(url)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(0, null, "GET " + url + ": interrupted");
        }
    }

    /** Through the client's own HTTP stack: its credentials authenticate the proxy request to the API server. */
    private static Reply throughApiServer(KubernetesClient client, String path) {
        String base = client.getMasterUrl().toString().replaceAll("/+$", "");
        try {
            var http = client.getHttpClient();
            var r = http.sendAsync(http.newHttpRequestBuilder().uri(base + path).timeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).build(),
                    String.class).get(TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
            return new Reply(r.code(), r.body(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(0, null, "GET " + path + ": interrupted");
        } catch (java.util.concurrent.TimeoutException e) {
            return new Reply(0, null, "GET " + path + ": no answer within " + TIMEOUT.toSeconds() + "s");
        } catch (Exception e) {
            return new Reply(0, null, "GET " + path + ": " + TransportFailure.describe(e, URI.create(base)));
        }
    }

    private static boolean isLoopback(String host) {
        try {
            return host != null && InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * A client TLS context that accepts any server certificate: for a controller reached over a port-forward (its
     * certificate is usually self-signed; the tunnel reached the pod), and for tests of what the controller serves.
     */
    public static SSLContext trustingTls() throws GeneralSecurityException {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, new SecureRandom());
        return tls;
    }

    private static Answer answer(Reply reply, String via, String key) {
        if (reply.failure() != null) {
            return unknown("the controller did not answer: " + reply.failure());
        }
        HpaDecisions decisions = null;
        if (reply.code() == 200 || reply.code() == 404) {
            try {
                decisions = DecisionsJson.read(reply.body(), HpaDecisions.class);
            } catch (IOException | RuntimeException e) {
                decisions = null;
            }
        }
        if (decisions == null && (reply.code() == 401 || reply.code() == 403)) {
            return unknown(via + " answered HTTP " + reply.code() + ": " + firstLine(reply.body()) + " (give --controller-token a token"
                    + " allowed to get /decisions/*, e.g. of a ServiceAccount bound to the chart's ClusterRole RELEASE-metrics-reader)");
        }
        if (decisions == null) {
            return unknown(via + " answered HTTP " + reply.code() + ": " + firstLine(reply.body()));
        }
        if (!decisions.leading()) {
            return new Answer(decisions, via, via + " is not the leader: it keeps no history");
        }
        if (!decisions.history().seen()) {
            return new Answer(decisions, via, "the controller has not synced " + key + " yet (a new HPA, or a namespace it does not watch)");
        }
        return new Answer(decisions, via, null);
    }

    private static Answer unknown(String why) {
        return new Answer(null, null, why);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
