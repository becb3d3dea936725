package io.hpacontroller.explain;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.live.KubeApi;
import io.hpacontroller.live.TransportFailure;
import io.hpacontroller.ops.DecisionsJson;
import io.hpacontroller.ops.HpaDecisions;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * How {@code explain} reaches the running controller's {@code /decisions/NAMESPACE/NAME}: at a URL the user
 * gives ({@code --controller-url}, e.g. after {@code kubectl port-forward}), or else through the API
 * server: the Lease names the leader's pod, and the API server's pod proxy reaches that pod's metrics port
 * (what {@code kubectl get --raw} would do; it needs {@code get} on the Lease and on {@code pods/proxy} in the
 * controller's namespace). The leader, not any pod behind the Service: a standby remembers nothing.
 */
public final class ControllerLink {

    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final int DEFAULT_METRICS_PORT = 8080;

    /**
     * Where to look.
     *
     * @param url       the controller's metrics address (http://HOST:PORT), or null to go through the API server
     * @param namespace the controller's namespace (where its Lease is)
     * @param lease     the Lease's name
     */
    public record Target(URI url, String namespace, String lease) {
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
        String path = "/decisions/" + Arrays.stream(key.split("/")).map(ControllerLink::encode).collect(Collectors.joining("/"));
        if (target.url() != null) {
            String base = target.url().toString().replaceAll("/+$", "");
            return answer(direct(base + path), "the controller at " + base, key);
        }
        Lease lease;
        try {
            lease = api.get("/apis/coordination.k8s.io/v1/namespaces/" + encode(target.namespace()) + "/leases/" + encode(target.lease()), Lease.class);
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
        Pod pod;
        try {
            pod = api.get("/api/v1/namespaces/" + encode(target.namespace()) + "/pods/" + encode(holder), Pod.class);
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
        String proxy = "/api/v1/namespaces/" + target.namespace() + "/pods/" + holder + ":" + port + "/proxy" + path;
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

    private record Reply(int code, String body, String failure) {
    }

    /** A plain HTTP client: the user's credentials are not sent to the controller. */
    private static Reply direct(String url) {
        try {
            HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()
                    .send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body(), null);
        } catch (IOException | IllegalArgumentException e) {
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

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
