package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.hpacontroller.api.TransportFailure;
import io.hpacontroller.core.GoDuration;
import io.hpacontroller.history.StoredHistory;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.input.ParseProblem;
import io.hpacontroller.metrics.MetricsBackends;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code run} needs of the cluster, checked once before the controller starts: the API server
 * answers, takes the credentials, is Kubernetes 1.23 or later (autoscaling/v2), and grants the
 * permissions the controller cannot work without (asked with SelfSubjectAccessReviews, the way
 * {@code kubectl auth can-i} asks), and serves the HPA APIs of {@code --hpa-apis} (the mirror API's CRD
 * is installed). Permissions it works without but loses part of its job (the scale of one kind, events,
 * a metrics API) are warnings.
 */
final class ClusterAccess {

    /** The oldest Kubernetes minor version that serves autoscaling/v2. */
    static final int OLDEST_MINOR = 23;

    enum State {
        /** Go ahead. */
        READY,
        /** An API {@code --hpa-apis} names is not served (its CRD is not installed): a mistake of the settings. */
        MISSING_API,
        /** Not now: the API server did not answer (or answered 5xx); try again later. */
        UNREACHABLE,
        /** Never with these settings: wrong credentials, missing permissions, a server that is not Kubernetes or is too old. */
        REFUSED
    }

    /**
     * @param state    what to do
     * @param message  why, in one line (for READY: the server's version)
     * @param warnings permissions the controller works without, one line each
     */
    record Verdict(State state, String message, List<String> warnings) {
    }

    /** One permission: a verb on a resource (group, optional subresource, optional name) in a namespace or cluster-wide. */
    record Permission(String verb, String group, String resource, String subresource, String name, String namespace, boolean required) {

        /** kubectl's spelling: "horizontalpodautoscalers.autoscaling/status", "pods", "leases.coordination.k8s.io \"x\"". */
        String target() {
            String r = resource + (group.isEmpty() ? "" : "." + group) + (subresource.isEmpty() ? "" : "/" + subresource);
            return name.isEmpty() ? r : r + " \"" + name + "\"";
        }

        String scope() {
            return namespace.isEmpty() ? "at the cluster scope" : "in namespace " + namespace;
        }
    }

    private static final Pattern MINOR = Pattern.compile("^(\\d+)");

    private final KubernetesClient client;
    private final List<Permission> permissions;
    private final Set<HpaApi> apis;
    private final boolean persistHistory;

    ClusterAccess(KubernetesClient client, List<Permission> permissions) {
        this(client, permissions, Set.of());
    }

    /** @param apis the APIs whose HPAs are reconciled: each must be served (the mirror's CRD installed) */
    ClusterAccess(KubernetesClient client, List<Permission> permissions, Set<HpaApi> apis) {
        this(client, permissions, apis, false);
    }

    /** @param persistHistory {@code --persist-history}: the HorizontalPodAutoscalerHistory API must be served (its CRD installed) */
    ClusterAccess(KubernetesClient client, List<Permission> permissions, Set<HpaApi> apis, boolean persistHistory) {
        this.client = client;
        this.permissions = List.copyOf(permissions);
        this.apis = Set.copyOf(apis);
        this.persistHistory = persistHistory;
    }

    /**
     * What the controller asks for, as the chart's ClusterRole and lease Role grant it: in each watched
     * namespace (or cluster-wide when none is given), and on the Lease when leader election is on.
     * autoscaling/v2 HPAs are always read (reconciled, shadowed, or for the mirror HPAs' AmbiguousSelector
     * check); a status is written only for the APIs whose HPAs are reconciled, a scale and events only
     * when any are (shadow mode alone writes nothing).
     *
     * @param apis           the APIs whose HPAs are reconciled ({@code --hpa-apis})
     * @param leaseNamespace the Lease's namespace, null without leader election
     */
    static List<Permission> needed(Set<HpaApi> apis, List<String> namespaces, String leaseNamespace, String leaseName) {
        return needed(apis, namespaces, leaseNamespace, leaseName, false);
    }

    /** The same, and with {@code persistHistory} reading, creating and updating the HPAs' HorizontalPodAutoscalerHistory objects. */
    static List<Permission> needed(Set<HpaApi> apis, List<String> namespaces, String leaseNamespace, String leaseName, boolean persistHistory) {
        List<Permission> out = new ArrayList<>();
        boolean writes = !apis.isEmpty();
        for (String ns : namespaces.isEmpty() ? List.of("") : namespaces) {
            for (HpaApi api : HpaApi.values()) {
                if (api == HpaApi.BUILTIN || apis.contains(api)) {
                    for (String verb : List.of("list", "watch")) {
                        out.add(new Permission(verb, api.group(), api.plural(), "", "", ns, true));
                    }
                }
                if (apis.contains(api)) {
                    out.add(new Permission("update", api.group(), api.plural(), "status", "", ns, true));
                }
            }
            for (String verb : List.of("list", "watch")) {
                out.add(new Permission(verb, "", "pods", "", "", ns, true));
            }
            for (HpaApi api : apis) {
                out.add(new Permission("get", api.group(), api.plural(), "", "", ns, false));
            }
            for (String[] kind : List.of(new String[] {"apps", "deployments"}, new String[] {"apps", "statefulsets"},
                    new String[] {"apps", "replicasets"}, new String[] {"", "replicationcontrollers"})) {
                for (String verb : writes ? List.of("get", "update") : List.of("get")) {
                    out.add(new Permission(verb, kind[0], kind[1], "scale", "", ns, false));
                }
                for (String verb : List.of("list", "watch")) {
                    out.add(new Permission(verb, kind[0], kind[1], "", "", ns, false));
                }
            }
            for (String verb : writes ? List.of("create", "patch") : List.<String>of()) {
                out.add(new Permission(verb, "", "events", "", "", ns, false));
            }
            if (persistHistory && writes) {
                for (String verb : List.of("get", "create", "update")) {
                    out.add(new Permission(verb, StoredHistory.GROUP, StoredHistory.PLURAL, "", "", ns, true));
                }
            }
            out.add(new Permission("list", "metrics.k8s.io", "pods", "", "", ns, false));
            out.add(new Permission("get", "custom.metrics.k8s.io", "*", "", "", ns, false));
            out.add(new Permission("get", "external.metrics.k8s.io", "*", "", "", ns, false));
        }
        for (String apiService : MetricsBackends.QUERIED.values()) {
            out.add(new Permission("get", "apiregistration.k8s.io", "apiservices", "", apiService, "", false));
        }
        if (leaseNamespace != null) {
            out.add(new Permission("create", "coordination.k8s.io", "leases", "", "", leaseNamespace, true));
            for (String verb : List.of("get", "update")) {
                out.add(new Permission(verb, "coordination.k8s.io", "leases", "", leaseName, leaseNamespace, true));
            }
        }
        return out;
    }

    Verdict check() {
        String version;
        try {
            VersionInfo info = client.getKubernetesVersion();
            if (info == null || info.getMajor() == null || info.getMinor() == null) {
                // fabric8 answers null for a 404
                return refused("this is not a Kubernetes API server: GET /version returned no version");
            }
            if (tooOld(info)) {
                return refused("Kubernetes " + info.getGitVersion() + " does not serve autoscaling/v2: hpa-controller needs Kubernetes 1."
                        + OLDEST_MINOR + " or later");
            }
            version = info.getGitVersion() != null ? info.getGitVersion() : "v" + info.getMajor() + "." + info.getMinor();
        } catch (KubernetesClientException e) {
            if (unreachable(e)) {
                return new Verdict(State.UNREACHABLE, reason(e, client.getMasterUrl().toString()), List.of());
            }
            if (e.getCode() == 401) {
                return refused("the API server rejected the credentials (401 Unauthorized): " + statusMessage(e));
            }
            if (e.getCode() != 403) {
                return refused("this is not a Kubernetes API server: GET /version answered " + e.getCode() + " " + statusMessage(e));
            }
            version = "of an unknown version (GET /version is forbidden)";
        } catch (RuntimeException e) {
            return refused("this is not a Kubernetes API server: GET /version returned no version (" + ParseProblem.of(e) + ")");
        }
        String missingApis = missingApis();
        if (missingApis != null) {
            return new Verdict(State.MISSING_API, missingApis, List.of());
        }
        Map<String, List<String>> missing = new LinkedHashMap<>();
        Map<String, List<String>> lacking = new LinkedHashMap<>();
        for (Permission p : permissions) {
            Boolean allowed;
            try {
                allowed = allowed(p);
            } catch (KubernetesClientException e) {
                if (unreachable(e)) {
                    return new Verdict(State.UNREACHABLE, reason(e, client.getMasterUrl().toString()), List.of());
                }
                if (e.getCode() == 401) {
                    return refused("the API server rejected the credentials (401 Unauthorized): " + statusMessage(e));
                }
                return new Verdict(State.READY, version, List.of("could not check the controller's permissions (creating a "
                        + "SelfSubjectAccessReview answered " + e.getCode() + " " + statusMessage(e) + "); starting anyway"));
            }
            if (!Boolean.TRUE.equals(allowed)) {
                (p.required() ? missing : lacking).computeIfAbsent(p.target() + " " + p.scope(), k -> new ArrayList<>()).add(p.verb());
            }
        }
        if (!missing.isEmpty()) {
            return refused("missing permissions: " + String.join("; ", cannot(missing))
                    + " (the chart's ClusterRole and lease Role grant them: see deploy/clusterrole.yaml)");
        }
        return new Verdict(State.READY, version, cannot(lacking).stream()
                .map(w -> w + ": HPAs that need it will fail their syncs (conditions and events say which)").toList());
    }

    /** Whether the API server serves the resource (an answer other than 404 counts as yes: the first use will say what is wrong). */
    private boolean serves(String apiVersion, String plural) {
        APIResourceList resources;
        try {
            resources = client.getApiResources(apiVersion);
        } catch (KubernetesClientException e) {
            return e.getCode() != 404;
        }
        return resources != null && resources.getResources() != null
                && resources.getResources().stream().anyMatch(r -> plural.equals(r.getName()));
    }

    /** Where a checkout of this repository has every CRD of ours, and the one command that installs them. */
    static final String INSTALL_CRDS = "kubectl apply --server-side -f charts/hpa-controller/crds/";

    /**
     * Null when the API server serves every API the settings need, else which it does not, why they are needed, and
     * what to do: our CRDs are named all together (a workstation that applied one must not meet the next at the next
     * start), with the one command that installs them all.
     */
    private String missingApis() {
        List<String> crds = new ArrayList<>();
        List<String> orElse = new ArrayList<>();
        for (HpaApi api : apis) {
            if (serves(api.apiVersion(), api.plural())) {
                continue;
            }
            if (api != HpaApi.MIRROR) {
                return "--hpa-apis includes " + api.apiVersion() + " but the API server does not serve it";
            }
            crds.add(api.plural() + "." + api.group() + " (--hpa-apis includes " + api.apiVersion() + ")");
            orElse.add("leave " + api.apiVersion() + " out of --hpa-apis");
        }
        if (persistHistory && !apis.isEmpty() && !serves(StoredHistory.API_VERSION, StoredHistory.PLURAL)) {
            crds.add(StoredHistory.PLURAL + "." + StoredHistory.GROUP + " (--persist-history is on)");
            orElse.add("set --persist-history=false");
        }
        if (crds.isEmpty()) {
            return null;
        }
        return "the API server does not serve " + String.join(" nor ", crds) + ": install the CRDs, all at once: " + INSTALL_CRDS
                + " (from a checkout of hpa-controller; helm install and kubectl apply -k deploy/ install them too), or "
                + String.join(" and ", orElse);
    }

    private static Verdict refused(String message) {
        return new Verdict(State.REFUSED, message, List.of());
    }

    /** "cannot list, watch pods at the cluster scope", one per resource and scope. */
    private static List<String> cannot(Map<String, List<String>> verbsByTarget) {
        return verbsByTarget.entrySet().stream().map(e -> "cannot " + String.join(", ", e.getValue()) + " " + e.getKey()).toList();
    }

    private Boolean allowed(Permission p) {
        ResourceAttributes attributes = new ResourceAttributes();
        attributes.setVerb(p.verb());
        attributes.setGroup(p.group());
        attributes.setResource(p.resource());
        if (!p.subresource().isEmpty()) {
            attributes.setSubresource(p.subresource());
        }
        if (!p.name().isEmpty()) {
            attributes.setName(p.name());
        }
        if (!p.namespace().isEmpty()) {
            attributes.setNamespace(p.namespace());
        }
        SelfSubjectAccessReview review = client.authorization().v1().selfSubjectAccessReview()
                .create(new SelfSubjectAccessReviewBuilder().withNewSpec().withResourceAttributes(attributes).endSpec().build());
        return review.getStatus() == null ? null : review.getStatus().getAllowed();
    }

    /** Older than 1.23, which brought autoscaling/v2 (managed clusters write the minor as "23+"). */
    static boolean tooOld(VersionInfo info) {
        Matcher m = MINOR.matcher(info.getMinor());
        return "1".equals(info.getMajor()) && m.find() && Integer.parseInt(m.group(1)) < OLDEST_MINOR;
    }

    /** A place to wait between two attempts; answers true when the process is stopping instead. */
    interface Pause {
        boolean stopWithin(Duration wait) throws InterruptedException;
    }

    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LONGEST_RETRY = Duration.ofSeconds(30);

    /**
     * Checks until the API server answers: while it cannot be reached, one log line per attempt and
     * another attempt after 1 s, 2 s, 4 s ... at most 30 s apart, for as long as it takes. Returns the
     * first READY or REFUSED verdict, or null when the process is stopping.
     */
    static Verdict untilAnswered(Supplier<Verdict> check, Pause pause, Consumer<String> log, String server) throws InterruptedException {
        Duration wait = FIRST_RETRY;
        for (int attempt = 1; ; attempt++) {
            Verdict verdict = check.get();
            if (verdict.state() != State.UNREACHABLE) {
                return verdict;
            }
            log.accept("cannot reach the API server at " + server + ": " + verdict.message() + "; attempt " + attempt
                    + ", next in " + GoDuration.format(wait));
            if (pause.stopWithin(wait)) {
                return null;
            }
            wait = wait.multipliedBy(2).compareTo(LONGEST_RETRY) > 0 ? LONGEST_RETRY : wait.multipliedBy(2);
        }
    }

    /** The message of the API server's Status, else the client's. */
    private static String statusMessage(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null) {
            return e.getStatus().getMessage();
        }
        return ParseProblem.firstLine(e.getMessage());
    }

    /** No HTTP answer (fabric8's code is then 0 or -1), or a server error: try again later. */
    private static boolean unreachable(KubernetesClientException e) {
        return e.getCode() <= 0 || e.getCode() >= 500;
    }

    /**
     * Why the API server at {@code server} could not be reached, as client-go says it
     * ("dial tcp 127.0.0.1:6443: connect: connection refused"; see {@link TransportFailure}).
     */
    static String reason(KubernetesClientException e, String server) {
        if (e.getCode() >= 500) {
            return "it answered " + e.getCode() + " " + statusMessage(e);
        }
        return TransportFailure.describe(e, URI.create(server));
    }
}
