package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.cli.ClusterAccess.State;
import io.hpacontroller.cli.ClusterAccess.Verdict;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.testing.MockCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up check of {@code run}: the API server answers, takes the credentials, is new enough and grants what is needed. */
class ClusterAccessTest {

    private MockCluster cluster;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        cluster = MockCluster.start();
        client = cluster.newClient();
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    /** --hpa-apis=autoscaling/v2: the built-in controller turned off. */
    private static final Set<HpaApi> FULL_REPLACEMENT = Set.of(HpaApi.BUILTIN);

    private Verdict check(List<String> namespaces, String leaseNamespace) {
        return new ClusterAccess(client, ClusterAccess.needed(FULL_REPLACEMENT, namespaces, leaseNamespace, "hpa-controller")).check();
    }

    @Test
    void everythingGrantedIsReadyWithTheServersVersion() {
        Verdict v = check(List.of(), "hpa-controller");

        assertThat(v.state()).isEqualTo(State.READY);
        assertThat(v.message()).isEqualTo("v1.37.0");
        assertThat(v.warnings()).isEmpty();
        assertThat(cluster.count("POST", p -> p.endsWith("/selfsubjectaccessreviews"))).as("one review per permission")
                .isEqualTo(ClusterAccess.needed(FULL_REPLACEMENT, List.of(), "hpa-controller", "hpa-controller").size());
    }

    @Test
    void aMissingPermissionTheControllerCannotWorkWithoutIsNamedAndRefused() {
        cluster.forbid("list", "horizontalpodautoscalers.autoscaling");
        cluster.forbid("watch", "horizontalpodautoscalers.autoscaling");
        cluster.forbid("update", "horizontalpodautoscalers.autoscaling/status");

        Verdict v = check(List.of(), null);

        assertThat(v.state()).isEqualTo(State.REFUSED);
        assertThat(v.message()).startsWith("missing permissions: cannot list, watch horizontalpodautoscalers.autoscaling at the cluster scope;"
                + " cannot update horizontalpodautoscalers.autoscaling/status at the cluster scope (");
    }

    @Test
    void permissionsAreAskedInEachWatchedNamespaceAndOnTheLease() {
        cluster.forbid("watch", "pods");
        cluster.forbid("update", "leases.coordination.k8s.io");

        Verdict v = check(List.of("shop", "payments"), "hpa-controller");

        assertThat(v.state()).isEqualTo(State.REFUSED);
        assertThat(v.message()).contains("cannot watch pods in namespace shop; cannot watch pods in namespace payments; "
                + "cannot update leases.coordination.k8s.io \"hpa-controller\" in namespace hpa-controller");
    }

    @Test
    void aPermissionThatCostsOnlyPartOfTheJobIsAWarning() {
        cluster.forbid("get", "deployments.apps/scale");
        cluster.forbid("update", "deployments.apps/scale");

        Verdict v = check(List.of(), "hpa-controller");

        assertThat(v.state()).isEqualTo(State.READY);
        assertThat(v.warnings()).singleElement().asString()
                .startsWith("cannot get, update deployments.apps/scale at the cluster scope: HPAs that need it will fail their syncs");
    }

    @Test
    void rejectedCredentialsAreRefused() {
        cluster.fail("GET", "^/version$", 401, 1);

        Verdict v = check(List.of(), null);

        assertThat(v.state()).isEqualTo(State.REFUSED);
        assertThat(v.message()).isEqualTo("the API server rejected the credentials (401 Unauthorized): injected fault");
    }

    @Test
    void aClusterOlderThanAutoscalingV2IsRefused() {
        cluster.serveVersion("v1.22.17");

        Verdict v = check(List.of(), null);

        assertThat(v.state()).isEqualTo(State.REFUSED);
        assertThat(v.message()).isEqualTo("Kubernetes v1.22.17 does not serve autoscaling/v2: hpa-controller needs Kubernetes 1.23 or later");
    }

    @Test
    void aServerThatIsNotKubernetesIsRefused() {
        cluster.fail("GET", "^/version$", 404, 1);

        assertThat(check(List.of(), null).message()).isEqualTo("this is not a Kubernetes API server: GET /version returned no version");
    }

    @Test
    void aServerErrorOrNoAnswerIsUnreachable() throws Exception {
        cluster.fail("GET", "^/version$", 503, 1);
        Verdict busy = check(List.of(), null);
        assertThat(busy.state()).isEqualTo(State.UNREACHABLE);
        assertThat(busy.message()).isEqualTo("it answered 503 injected fault");

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Config nowhere = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:" + port).withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient closed = new KubernetesClientBuilder().withConfig(nowhere).build()) {
            Verdict v = new ClusterAccess(closed, ClusterAccess.needed(FULL_REPLACEMENT, List.of(), null, null)).check();
            assertThat(v.state()).isEqualTo(State.UNREACHABLE);
            assertThat(v.message()).isEqualTo("dial tcp 127.0.0.1:" + port + ": connect: connection refused");
        }
    }

    @Test
    void theMirrorApiNeedsItsCrdAndItsOwnStatusButOnlyReadsTheBuiltinHpas() {
        Set<HpaApi> mirror = Set.of(HpaApi.MIRROR);
        cluster.forbid("update", "horizontalpodautoscalers.autoscaling/status");

        Verdict ready = new ClusterAccess(client, ClusterAccess.needed(mirror, List.of(), null, null), mirror).check();
        assertThat(ready.state()).isEqualTo(State.READY);
        assertThat(ready.warnings()).isEmpty();

        cluster.forbid("watch", "horizontalpodautoscalers.autoscaling");
        cluster.forbid("update", "horizontalpodautoscalers.autoscaling.hpa-controller.io/status");
        Verdict refused = new ClusterAccess(client, ClusterAccess.needed(mirror, List.of(), null, null), mirror).check();
        assertThat(refused.state()).isEqualTo(State.REFUSED);
        assertThat(refused.message()).startsWith("missing permissions: cannot watch horizontalpodautoscalers.autoscaling at the cluster scope;"
                + " cannot update horizontalpodautoscalers.autoscaling.hpa-controller.io/status at the cluster scope");
    }

    @Test
    void aMirrorApiWhoseCrdIsNotInstalledIsAMistakeOfTheSettings() {
        cluster.fail("GET", "^/apis/autoscaling\\.hpa-controller\\.io/v1$", 404, 1);
        Set<HpaApi> mirror = Set.of(HpaApi.MIRROR);

        Verdict v = new ClusterAccess(client, ClusterAccess.needed(mirror, List.of(), null, null), mirror).check();

        assertThat(v.state()).isEqualTo(State.MISSING_API);
        assertThat(v.message()).isEqualTo("the API server does not serve horizontalpodautoscalers.autoscaling.hpa-controller.io (--hpa-apis includes"
                + " autoscaling.hpa-controller.io/v1): install the CRDs, all at once: kubectl apply --server-side -f charts/hpa-controller/crds/"
                + " (from a checkout of hpa-controller; helm install and kubectl apply -k deploy/ install them too), or leave"
                + " autoscaling.hpa-controller.io/v1 out of --hpa-apis");
        assertThat(Path.of("charts/hpa-controller/crds/horizontalpodautoscalers.autoscaling.hpa-controller.io.yaml")).as("in the directory the message names")
                .exists();
    }

    @Test
    void keptHistoriesNeedTheirCrdAndTheirPermissions() {
        Set<HpaApi> mirror = Set.of(HpaApi.MIRROR);
        cluster.fail("GET", "^/apis/autoscaling\\.hpa-controller\\.io/v1$", 404, 2); // neither CRD installed
        Verdict v = new ClusterAccess(client, ClusterAccess.needed(mirror, List.of(), null, null, true), mirror, true).check();
        assertThat(v.state()).isEqualTo(State.MISSING_API);
        assertThat(v.message()).as("both named at once").isEqualTo("the API server does not serve horizontalpodautoscalers.autoscaling.hpa-controller.io (--hpa-apis includes"
                + " autoscaling.hpa-controller.io/v1) nor horizontalpodautoscalerhistories.autoscaling.hpa-controller.io (--persist-history is on):"
                + " install the CRDs, all at once: kubectl apply --server-side -f charts/hpa-controller/crds/ (from a checkout of hpa-controller;"
                + " helm install and kubectl apply -k deploy/ install them too), or leave autoscaling.hpa-controller.io/v1 out of --hpa-apis and set"
                + " --persist-history=false");
        assertThat(Path.of("charts/hpa-controller/crds/horizontalpodautoscalerhistories.autoscaling.hpa-controller.io.yaml"))
                .as("in the directory the message names").exists();
        cluster.fail("GET", "^/apis/autoscaling\\.hpa-controller\\.io/v1$", 404, 1);
        assertThat(new ClusterAccess(client, ClusterAccess.needed(FULL_REPLACEMENT, List.of(), null, null, true), FULL_REPLACEMENT, true).check().message())
                .isEqualTo("the API server does not serve horizontalpodautoscalerhistories.autoscaling.hpa-controller.io (--persist-history is on):"
                        + " install the CRDs, all at once: kubectl apply --server-side -f charts/hpa-controller/crds/ (from a checkout of hpa-controller;"
                        + " helm install and kubectl apply -k deploy/ install them too), or set --persist-history=false");

        cluster.forbid("create", "horizontalpodautoscalerhistories.autoscaling.hpa-controller.io");
        Verdict refused = new ClusterAccess(client, ClusterAccess.needed(mirror, List.of(), null, null, true), mirror, true).check();
        assertThat(refused.state()).isEqualTo(State.REFUSED);
        assertThat(refused.message()).startsWith("missing permissions: cannot create horizontalpodautoscalerhistories.autoscaling.hpa-controller.io at the cluster scope");
        assertThat(ClusterAccess.needed(mirror, List.of(), null, null, false)).as("without --persist-history")
                .noneSatisfy(p -> assertThat(p.resource()).isEqualTo("horizontalpodautoscalerhistories"));
    }

    @Test
    void shadowModeAloneAsksForNoWrite() {
        List<ClusterAccess.Permission> needed = ClusterAccess.needed(Set.of(), List.of(), "hpa-controller", "hpa-controller");

        assertThat(needed).filteredOn(p -> !p.resource().equals("leases"))
                .allSatisfy(p -> assertThat(p.verb()).as(p.target()).isIn("get", "list", "watch"))
                .anySatisfy(p -> assertThat(p.target()).isEqualTo("horizontalpodautoscalers.autoscaling"));
    }

    /** A default install must pass its own start-up check: deploy/ grants every permission the check asks for. */
    @Test
    void deployGrantsEverythingTheCheckAsksFor() throws Exception {
        KubernetesSerialization yaml = new KubernetesSerialization();
        ClusterRole clusterRole = yaml.unmarshal(Files.readString(Path.of("deploy/clusterrole.yaml")), ClusterRole.class);
        String leaseRbac = Files.readString(Path.of("deploy/leader-election-rbac.yaml"));
        Role leaseRole = yaml.unmarshal(leaseRbac.substring(0, leaseRbac.indexOf("\n---\n")), Role.class);

        // the chart's default: the mirror API only, the histories kept
        List<ClusterAccess.Permission> needed = ClusterAccess.needed(Set.of(HpaApi.MIRROR), List.of(), leaseRole.getMetadata().getNamespace(), "hpa-controller", true);
        assertThat(needed).anySatisfy(p -> assertThat(p.target() + " " + p.verb()).isEqualTo("horizontalpodautoscalerhistories.autoscaling.hpa-controller.io update"));

        assertThat(needed).hasSizeGreaterThan(20).allSatisfy(p -> assertThat(
                grants(clusterRole.getRules(), p) || p.namespace().equals(leaseRole.getMetadata().getNamespace()) && grants(leaseRole.getRules(), p))
                .as("deploy/ grants %s %s %s", p.verb(), p.target(), p.scope()).isTrue());
    }

    private static boolean grants(List<PolicyRule> rules, ClusterAccess.Permission p) {
        String resource = p.subresource().isEmpty() ? p.resource() : p.resource() + "/" + p.subresource();
        return rules.stream().anyMatch(r -> r.getApiGroups().contains(p.group())
                && (r.getResources().contains(resource) || r.getResources().contains("*"))
                && (r.getVerbs().contains(p.verb()) || r.getVerbs().contains("*"))
                && (r.getResourceNames().isEmpty() || r.getResourceNames().contains(p.name())));
    }

    @Test
    void anUnreachableServerIsTriedAgainWithBackoffOneLinePerAttempt() throws Exception {
        Queue<Verdict> answers = new ArrayDeque<>();
        for (int i = 0; i < 7; i++) {
            answers.add(new Verdict(State.UNREACHABLE, "Connection refused: /10.0.0.1:6443", List.of()));
        }
        answers.add(new Verdict(State.READY, "v1.37.0", List.of()));
        List<Duration> waits = new ArrayList<>();
        List<String> lines = new ArrayList<>();

        Verdict v = ClusterAccess.untilAnswered(answers::remove, wait -> !waits.add(wait), lines::add, "https://10.0.0.1:6443");

        assertThat(v.state()).isEqualTo(State.READY);
        assertThat(waits).extracting(Duration::toSeconds).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L);
        assertThat(lines).hasSize(7).first().asString()
                .isEqualTo("cannot reach the API server at https://10.0.0.1:6443: Connection refused: /10.0.0.1:6443; attempt 1, next in 1s");
        assertThat(lines.get(6)).endsWith("; attempt 7, next in 30s");
    }

    @Test
    void stoppingWhileWaitingEndsTheWait() throws Exception {
        List<Duration> waits = new ArrayList<>();

        Verdict v = ClusterAccess.untilAnswered(() -> new Verdict(State.UNREACHABLE, "no route to host", List.of()),
                wait -> waits.add(wait) && waits.size() == 3, line -> { }, "https://10.0.0.1:6443");

        assertThat(v).isNull();
        assertThat(waits).hasSize(3);
    }
}
