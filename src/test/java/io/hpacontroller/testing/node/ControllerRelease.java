package io.hpacontroller.testing.node;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.hpacontroller.explain.ControllerLink;
import io.hpacontroller.ops.DecisionsJson;
import io.hpacontroller.ops.HpaDecisions;
import io.hpacontroller.shard.MemberLease;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The controller installed on the real node as users install it: {@code helm install} of
 * {@code charts/hpa-controller} (Helm inside the JVM, helm-java), running the image {@code mvn verify} built.
 * With no values the release is the chart's default install; the image is set only if the built image is
 * not the one the chart names by default (its repository and appVersion).
 */
public final class ControllerRelease implements AutoCloseable {

    static final Path CHART = Path.of("charts/hpa-controller");
    private static final Pattern IMAGE = Pattern.compile("^(.+):([^:/]+)$");

    private final RealNode node;
    private final String name;
    private final String namespace;

    private ControllerRelease(RealNode node, String name, String namespace) {
        this.node = node;
        this.name = name;
        this.namespace = namespace;
    }

    /** {@code helm install NAME charts/hpa-controller -n NAMESPACE --create-namespace --set ...}, waited until its pods are Ready. */
    public static ControllerRelease install(RealNode node, String name, String namespace, Map<String, Object> values) {
        InstallCommand install = new Helm(CHART).install().withName(name).withNamespace(namespace).createNamespace()
                .withKubeConfig(node.plane().adminKubeconfig()).waitReady().withTimeout(300);
        imageValues().forEach(install::set);
        values.forEach(install::set);
        ControllerRelease release = new ControllerRelease(node, name, namespace);
        try {
            install.call();
        } catch (RuntimeException e) {
            release.saveLogs();
            throw new IllegalStateException("helm install " + name + " " + values + ": " + e.getMessage() + "; its pods: " + release.podStates(), e);
        }
        node.note("helm install " + name + " -n " + namespace + " " + values + ": Ready");
        return release;
    }

    /** The values that point the chart at the image built for the tests, when its defaults do not. */
    static Map<String, Object> imageValues() {
        String image = System.getProperty("image.name", "");
        Matcher m = IMAGE.matcher(image);
        Map<String, Object> out = new LinkedHashMap<>();
        if (!m.matches()) {
            return out;
        }
        String chart = read(CHART.resolve("Chart.yaml"));
        String values = read(CHART.resolve("values.yaml"));
        Matcher app = Pattern.compile("(?m)^appVersion: *\"?([^\"\\s]+)\"?").matcher(chart);
        Matcher repo = Pattern.compile("(?m)^  repository: *(\\S+)").matcher(values);
        if (!repo.find() || !repo.group(1).equals(m.group(1))) {
            out.put("image.repository", m.group(1));
        }
        if (!app.find() || !app.group(1).equals(m.group(2))) {
            out.put("image.tag", m.group(2));
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** {@code helm upgrade --reuse-values --set ...}, waited until Ready. */
    public void upgrade(Map<String, Object> values) {
        var upgrade = new Helm(CHART).upgrade().withName(name).withNamespace(namespace).reuseValues()
                .withKubeConfig(node.plane().adminKubeconfig()).waitReady().withTimeout(300);
        values.forEach(upgrade::set);
        upgrade.call();
        node.note("helm upgrade " + name + " " + values + ": Ready");
    }

    public String name() {
        return name;
    }

    public String namespace() {
        return namespace;
    }

    /** The chart's ServiceAccount as the API server names it. */
    public String user() {
        return "system:serviceaccount:" + namespace + ":" + name;
    }

    /** The controller's pods. */
    public List<Pod> pods() {
        return admin().pods().inNamespace(namespace).withLabel("app.kubernetes.io/instance", name).list().getItems();
    }

    /** The holder of the release's leader-election Lease (a pod name), or null. */
    public String leader() {
        Lease lease = admin().leases().inNamespace(namespace).withName("hpa-controller").get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    /** The names of the controller's pods that are Ready and not being deleted. */
    public List<String> readyPods() {
        return pods().stream().filter(CpuWorkload::ready)
                .map(p -> p.getMetadata().getName()).sorted().toList();
    }

    /** With {@code sharding.enabled}: each member Lease's holder and the member set (view) it publishes that it acts on. */
    public Map<String, java.util.SortedSet<String>> shardViews() {
        Map<String, java.util.SortedSet<String>> views = new java.util.TreeMap<>();
        for (Lease lease : admin().leases().inNamespace(namespace).withLabel(MemberLease.MEMBER_LABEL).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            views.put(lease.getSpec().getHolderIdentity(), MemberLease.parseView(annotations == null ? null : annotations.get(MemberLease.VIEW_ANNOTATION)));
        }
        return views;
    }

    /**
     * Per controller pod, what its start cost: the seconds from the container's start to the pod's Ready
     * condition, and the CPU and working set metrics.k8s.io reports for it now.
     */
    public List<String> footprint() {
        List<String> out = new java.util.ArrayList<>();
        var samples = node.resourceMetrics().samples(namespace);
        for (Pod p : pods()) {
            var started = p.getStatus().getContainerStatuses().get(0).getState().getRunning();
            String ready = p.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))
                    .map(c -> c.getLastTransitionTime()).findFirst().orElse(null);
            String readyIn = started == null || ready == null ? "not Ready"
                    : "Ready " + java.time.Duration.between(java.time.Instant.parse(started.getStartedAt()), java.time.Instant.parse(ready)).toSeconds()
                    + " s after its container started";
            String usage = samples.stream().filter(s -> s.name().equals(p.getMetadata().getName())).findFirst()
                    .map(s -> s.containers().values().iterator().next()).map(u -> "CPU " + u.cpu() + ", working set " + u.memory()).orElse("no metrics yet");
            out.add(p.getMetadata().getName() + ": " + readyIn + "; " + usage);
        }
        return out;
    }

    /**
     * The leader's {@code GET /decisions/KEY} (its last decision traces of the HPA {@code key}), as a ServiceAccount
     * bound to the chart's ClusterRole {@code <fullname>-metrics-reader} (the fullname is the release's name when it holds
     * the chart's, as {@code hpa-controller} does), through a port-forward of the leader's metrics port (the chart's
     * default 8080, served over HTTPS with bearer tokens reviewed by the API server), as {@code explain} reads it.
     */
    public HpaDecisions decisions(String key) throws Exception {
        String reader = name + "-decisions-reader";
        admin().serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder().withNewMetadata().withName(reader).endMetadata().build())
                .createOr(NonDeletingOperation::update);
        admin().rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(reader).endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(name + "-metrics-reader").endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withNamespace(namespace).withName(reader).endSubject().build())
                .createOr(NonDeletingOperation::update);
        String token = admin().serviceAccounts().inNamespace(namespace).withName(reader)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(600L).endSpec().build()).getStatus().getToken();
        try (LocalPortForward forward = admin().pods().inNamespace(namespace).withName(leader()).portForward(8080)) {
            HttpClient client = HttpClient.newBuilder().sslContext(ControllerLink.trustingTls()).connectTimeout(Duration.ofSeconds(30)).build();
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + forward.getLocalPort() + "/decisions/" + key))
                    .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("GET /decisions/" + key + " of " + leader() + ": " + answer.statusCode() + " " + answer.body());
            }
            return DecisionsJson.read(answer.body(), HpaDecisions.class);
        }
    }

    /** Each pod's phase, readiness and its containers' restarts and last termination, for a failure's message. */
    List<String> podStates() {
        return pods().stream().map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase() + " " + p.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType())).map(c -> "Ready=" + c.getStatus() + " " + c.getMessage()).findFirst().orElse("")
                + (p.getStatus().getContainerStatuses() == null ? "" : p.getStatus().getContainerStatuses().stream()
                .map(c -> " restarts " + c.getRestartCount() + (c.getLastState() != null && c.getLastState().getTerminated() != null
                        ? " last " + c.getLastState().getTerminated().getReason() + " exit " + c.getLastState().getTerminated().getExitCode() : ""))
                .reduce("", String::concat))).toList();
    }

    /** A pod's log (the controller's output). */
    public String log(String pod) {
        return admin().pods().inNamespace(namespace).withName(pod).getLog();
    }

    /**
     * Follows a pod's log into the node's logs directory ({@code RELEASE-POD.log}, as {@link #saveLogs}) until closed or the
     * pod is gone: the log of a pod about to be deleted, to its end.
     */
    public LogWatch followLog(String pod) {
        Path file = node.directory().resolve("logs").resolve(name + "-" + pod + ".log");
        try {
            return admin().pods().inNamespace(namespace).withName(pod).watchLog(Files.newOutputStream(file));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Writes each controller pod's log to the node's logs directory ({@code RELEASE-POD.log}), for after the test. */
    public void saveLogs() {
        for (Pod p : pods()) {
            String pod = p.getMetadata().getName();
            try {
                String previous = "";
                try {
                    previous = admin().pods().inNamespace(namespace).withName(pod).terminated().getLog();
                } catch (RuntimeException e) {
                    // no earlier container
                }
                java.nio.file.Files.writeString(node.directory().resolve("logs").resolve(name + "-" + pod + ".log"),
                        (previous.isEmpty() ? "" : previous + "\n---- restarted ----\n") + log(pod));
            } catch (java.io.IOException | RuntimeException e) {
                node.note("cannot save the log of " + pod + ": " + e);
            }
        }
    }

    private KubernetesClient admin() {
        return node.adminClient();
    }

    /** {@code helm uninstall}. */
    @Override
    public void close() {
        Helm.uninstall(name).withNamespace(namespace).withKubeConfig(node.plane().adminKubeconfig()).call();
    }
}
