package io.hpacontroller.explain;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.api.TransportFailure;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.validation.NameSyntax;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.ops.DecisionsJson;
import io.hpacontroller.ops.HpaDecisions;
import io.hpacontroller.shard.MemberLease;
import io.hpacontroller.shard.Ring;
import io.hpacontroller.shard.ShardLeases;

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
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * How {@code explain} reaches the running controller's {@code /decisions/NAMESPACE/NAME}: at a URL the user
 * gives ({@code --controller-url}, over HTTPS with the bearer token of {@code --controller-token}, else the
 * kubeconfig user's own, which the controller has the API server review), or else through the API server: the
 * Lease names the leader's pod (it needs {@code get} on the Lease and the pod in the controller's namespace). A leader
 * serving plain HTTP ({@code --metrics-secure=false}) is read through the API server's pod proxy ({@code pods/proxy});
 * one serving HTTPS (the default) through a port-forward of the API server ({@code get} and {@code create} on
 * {@code pods/portforward}: the client's WebSocket is a GET), authenticated as the kubeconfig's user. The leader, not any pod behind the Service: a
 * standby remembers nothing. With {@code --sharding} there is no leader's Lease: the member Leases (labelled with its name)
 * name the replica that owns the HPA, and that replica's pod is asked the same way.
 *
 * <p>Where the Lease is looked for, unless {@code --controller-namespace} says: {@value #CHART_NAMESPACE} (where the chart
 * and deploy/ install), then the kubeconfig context's namespace (where {@code run} from a workstation with the same
 * kubeconfig puts it).
 */
public final class ControllerLink {

    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final int DEFAULT_METRICS_PORT = 8080;
    public static final String CHART_NAMESPACE = "hpa-controller";

    /**
     * Where to look.
     *
     * @param url        the controller's metrics address (http://HOST:PORT or https://HOST:PORT), or null to go through the API server
     * @param namespaces the namespaces where its Lease may be, in order
     * @param lease      the Lease's name
     * @param token      the bearer token sent over HTTPS to the controller, null for none
     * @param tokenSource what the token is, for the messages
     */
    public record Target(URI url, List<String> namespaces, String lease, String token, String tokenSource) {
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

        /** Whether the controller said it does not reconcile the HPAs of this one's API (not in its --hpa-apis). */
        boolean notReconciled() {
            return unknown != null && unknown.startsWith(LEFT_TO_BUILTIN);
        }
    }

    /** What explain says of an HPA of an API the controller does not reconcile. */
    public static final String LEFT_TO_BUILTIN = "left to the built-in controller (see --hpa-apis)";

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
            return answer(direct(base + path, target.token()), "the controller at " + base, key, target);
        }
        Lease lease = null;
        String namespace = null;
        for (String ns : target.namespaces()) {
            try {
                lease = api.get("/apis/coordination.k8s.io/v1/namespaces/" + PathSegment.encode(ns) + "/leases/" + PathSegment.encode(target.lease()), Lease.class);
            } catch (ApiException.NotFound e) {
                lease = null;
            } catch (ApiException e) {
                return unknown("cannot read the Lease " + ns + "/" + target.lease() + ": " + e.getMessage());
            }
            if (lease != null && lease.getSpec() != null) {
                namespace = ns;
                break;
            }
        }
        String holder;
        String who;
        if (namespace == null) {
            String noLease = "no Lease " + target.namespaces().stream().map(ns -> ns + "/" + target.lease()).collect(Collectors.joining(" or "))
                    + ": no controller with leader election runs there (see --controller-namespace, --controller-lease); a controller run"
                    + " with --leader-elect=false (e.g. on a workstation) answers at its --metrics-bind-address: give --controller-url"
                    + " https://localhost:" + DEFAULT_METRICS_PORT + " (http:// with --metrics-secure=false)";
            Owner owner = shardOwner(api, target, key, noLease);
            if (owner.unknown() != null) {
                return unknown(owner.unknown());
            }
            namespace = owner.namespace();
            holder = owner.identity();
            who = "the replica " + holder + " that owns " + key + " (--sharding, Lease " + namespace + "/"
                    + MemberLease.leaseName(target.lease(), holder) + ")";
        } else {
            holder = lease.getSpec().getHolderIdentity();
            if (holder == null || holder.isEmpty()) {
                return unknown("the Lease " + namespace + "/" + target.lease() + " has no holder: no controller is leading");
            }
            who = "the leader " + holder + " (Lease " + namespace + "/" + target.lease() + ")";
        }
        Pod pod = null;
        if (NameSyntax.dns1123Subdomain(holder).isEmpty()) { // else no pod's name (a workstation's host_pid): nothing to read
            try {
                pod = api.get("/api/v1/namespaces/" + PathSegment.encode(namespace) + "/pods/" + PathSegment.encode(holder), Pod.class);
            } catch (ApiException.NotFound e) {
                pod = null;
            } catch (ApiException e) {
                return unknown("cannot read the pod of " + who + ": " + e.getMessage());
            }
        }
        if (pod == null) {
            return unknown(who + " is not a pod: a controller run outside"
                    + " the cluster (its host name, then _ and its process id); give its address with --controller-url https://HOST:"
                    + DEFAULT_METRICS_PORT + " (http:// with --metrics-secure=false)");
        }
        int port = metricsPort(pod);
        if (servesPlainHttp(pod)) {
            String proxy = "/api/v1/namespaces/" + PathSegment.encode(namespace) + "/pods/" + PathSegment.encode(holder) + ":" + port + "/proxy" + path;
            return answer(throughApiServer(client, proxy), who + ", through the API server's pod proxy", key, target);
        }
        if (target.token() == null) {
            return unknown(who + " serves /decisions over HTTPS to the callers the API server authenticates (--metrics-secure), and the"
                    + " kubeconfig's user has no bearer token (the controller reviews bearer tokens, not client certificates): give --controller-token TOKEN"
                    + " (e.g. $(kubectl -n " + namespace + " create token SERVICE_ACCOUNT) of a ServiceAccount bound to the ClusterRole"
                    + " hpa-controller-metrics-reader)");
        }
        return throughPortForward(client, namespace, holder, port, path, who, key, target);
    }

    /** With {@code --sharding}: the namespace and identity of the replica owning the HPA, or why none is known. */
    private record Owner(String namespace, String identity, String unknown) {
    }

    /**
     * The replica that owns the HPA by the member Leases of {@code --sharding} (labelled with the Lease name), read in the
     * first namespace that has any: the live member whose published view gives it the HPA, as the replicas' claim rule
     * says ({@link Ring#claimant}; live: renewed within its lease duration, by this machine's clock). When no namespace
     * has member Leases: {@code noLease}, and why they could not be listed if they could not.
     */
    private static Owner shardOwner(KubeApi api, Target target, String key, String noLease) {
        String unlisted = "";
        for (String ns : target.namespaces()) {
            List<MemberLease> members;
            try {
                members = ShardLeases.list(api, ns, target.lease());
            } catch (ApiException e) {
                unlisted = unlisted.isEmpty() ? "; the member Leases of --sharding in " + ns + " could not be listed: " + e.getMessage() : unlisted;
                continue;
            }
            if (members.isEmpty()) {
                continue;
            }
            Instant now = Instant.now();
            Map<String, SortedSet<String>> views = new TreeMap<>();
            members.stream().filter(m -> m.renewTime() != null && m.renewTime().plusSeconds(m.leaseDurationSeconds()).isAfter(now))
                    .forEach(m -> views.put(m.identity(), m.view()));
            String owner = Ring.claimant(HpaKey.parse(key), views);
            return owner != null ? new Owner(ns, owner, null) : new Owner(ns, null, "no replica of the " + views.size()
                    + " live members in " + ns + " (--sharding) claims " + key + " now: a handover is under way; try again in a few seconds");
        }
        return new Owner(null, null, noLease + unlisted);
    }

    /** The leader's HTTPS port forwarded through the API server to a loopback port of this process, for one request. */
    private static Answer throughPortForward(KubernetesClient client, String namespace, String holder, int port, String path, String leader,
                                             String key, Target target) {
        String cannot = "cannot forward port " + port + " of " + leader + " through the API server (it needs get and create on pods/portforward in "
                + namespace + "): ";
        try (LocalPortForward forward = client.pods().inNamespace(namespace).withName(holder).portForward(port)) {
            Reply reply = direct("https://127.0.0.1:" + forward.getLocalPort() + path, target.token());
            if (reply.failure() != null) {
                Throwable cause = forward.getClientThrowables().stream().findFirst().orElse(null);
                return unknown(cannot + (cause != null ? TransportFailure.describe(cause, URI.create(client.getMasterUrl().toString()))
                        : reply.failure()));
            }
            return answer(reply, leader + ", through a port-forward of the API server", key, target);
        } catch (IOException | RuntimeException e) {
            return unknown(cannot + TransportFailure.describe(e, URI.create(client.getMasterUrl().toString())));
        }
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
     * {@code token} (the user's, or one given for the controller) goes only over HTTPS, to be reviewed by the API server. The
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

    private static Answer answer(Reply reply, String via, String key, Target target) {
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
            return unknown(via + " answered HTTP " + reply.code() + ": " + firstLine(reply.body()) + " (sent: "
                    + (target.token() == null ? "no token" : target.tokenSource()) + "; the user needs get on /decisions/*: bind it to the"
                    + " ClusterRole hpa-controller-metrics-reader, or give --controller-token a token that has it)");
        }
        if (decisions == null) {
            return unknown(via + " answered HTTP " + reply.code() + ": " + firstLine(reply.body()));
        }
        List<String> apis = decisions.flags() == null ? null : decisions.flags().hpaApis();
        if (apis != null && !apis.contains(HpaApi.ofKey(key).apiVersion())) {
            return new Answer(decisions, via, LEFT_TO_BUILTIN + ": " + via + " reconciles the HPAs of " + (apis.isEmpty() ? "no API (--hpa-apis=)"
                    : String.join(", ", apis)) + " only");
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
