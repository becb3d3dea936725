package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 5, "Security": the RBAC and the container of deploy/ (the chart's default rendering) reviewed as code. */
class SecurityPostureTest {

    private final Manifests deploy = Manifests.deployDir();

    /** The roles bound to the controller's ServiceAccount (not the metrics reader's, which is for Prometheus). */
    private List<ClusterRole> controllerClusterRoles() {
        return deploy.all(ClusterRole.class).stream().filter(r -> !r.getMetadata().getName().endsWith("-metrics-reader")).toList();
    }

    @Test
    void rolesGrantLeastPrivilege() {
        List<PolicyRule> rules = Stream.concat(
                controllerClusterRoles().stream().flatMap(r -> r.getRules().stream()),
                deploy.all(Role.class).stream().flatMap(r -> r.getRules().stream())).toList();

        assertThat(rules).hasSizeGreaterThan(5);
        assertThat(RbacReview.violations(rules)).isEmpty();
    }

    @Test
    void writesGoOnlyToScaleStatusEventsTheLeaseAndTheKeptHistories() {
        List<String> written = Stream.concat(
                        controllerClusterRoles().stream().flatMap(r -> r.getRules().stream()),
                        deploy.all(Role.class).stream().flatMap(r -> r.getRules().stream()))
                .filter(r -> r.getVerbs().stream().anyMatch(RbacReview.WRITE_VERBS::contains))
                .flatMap(r -> r.getApiGroups().stream().flatMap(g -> r.getResources().stream().map(res -> g + "/" + res))).distinct().toList();

        assertThat(written).as("by default the built-in HPAs are only read: the mirror HPAs' status is written").containsExactlyInAnyOrder(
                "autoscaling.hpa-controller.io/horizontalpodautoscalers/status",
                "autoscaling.hpa-controller.io/horizontalpodautoscalerhistories",
                "apps/deployments/scale", "apps/statefulsets/scale", "apps/replicasets/scale", "/replicationcontrollers/scale",
                "/events", "events.k8s.io/events", "coordination.k8s.io/leases",
                "authentication.k8s.io/tokenreviews", "authorization.k8s.io/subjectaccessreviews");
    }

    @Test
    void theMetricsPortMayReviewTokensAndAccessAndItsReaderMayOnlyGetItsPaths() {
        assertThat(deploy.named(ClusterRole.class, "hpa-controller-metrics-auth").getRules()).extracting(r -> r.getApiGroups() + " " + r.getResources()
                + " " + r.getVerbs()).containsExactly("[authentication.k8s.io] [tokenreviews] [create]", "[authorization.k8s.io] [subjectaccessreviews] [create]");
        assertThat(deploy.named(ClusterRole.class, "hpa-controller-metrics-reader").getRules()).singleElement().satisfies(r -> {
            assertThat(r.getNonResourceURLs()).containsExactly("/metrics", "/decisions/*");
            assertThat(r.getVerbs()).containsExactly("get");
            assertThat(r.getResources()).isEmpty();
        });
        assertThat(deploy.all(ClusterRoleBinding.class)).as("the reader is bound only to metrics.readers").noneMatch(b -> b.getRoleRef().getName()
                .endsWith("-metrics-reader"));
        assertThat(HelmChart.render("metrics: {secure: false}").all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
                .containsExactly("hpa-controller");
    }

    @Test
    void persistingTheHistoriesAddsOnlyTheirObjectsWithoutDelete() {
        List<PolicyRule> without = HelmChart.render("persistHistory: false").controllerRole().getRules();
        List<PolicyRule> with = new java.util.ArrayList<>(HelmChart.render("").controllerRole().getRules());
        with.removeAll(without);

        assertThat(with).singleElement().satisfies(r -> {
            assertThat(r.getApiGroups()).containsExactly("autoscaling.hpa-controller.io");
            assertThat(r.getResources()).containsExactly("horizontalpodautoscalerhistories");
            assertThat(r.getVerbs()).as("the garbage collector deletes them with their HPA").containsExactly("get", "list", "create", "update");
        });
    }

    @Test
    void takingOverTheBuiltinHpasAddsOnlyTheirStatus() {
        List<PolicyRule> defaults = HelmChart.render("").controllerRole().getRules();
        List<PolicyRule> takeOver = new java.util.ArrayList<>(HelmChart.render("takeOverBuiltinHpas: true").controllerRole().getRules());
        takeOver.removeAll(defaults);

        assertThat(takeOver).singleElement().satisfies(r -> {
            assertThat(r.getApiGroups()).containsExactly("autoscaling");
            assertThat(r.getResources()).containsExactly("horizontalpodautoscalers/status");
            assertThat(r.getVerbs()).containsExactly("update", "patch");
        });
    }

    @Test
    void leaseAccessIsNamespacedAndOnlyCreateIsNotLimitedToTheControllersLease() {
        Role role = deploy.single(Role.class);

        assertThat(role.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        assertThat(role.getRules()).allSatisfy(r -> assertThat(r.getResources()).containsExactly("leases"));
        assertThat(role.getRules()).filteredOn(r -> r.getResourceNames().isEmpty())
                .singleElement().satisfies(r -> assertThat(r.getVerbs()).containsExactly("create"));
        assertThat(role.getRules()).filteredOn(r -> !r.getResourceNames().isEmpty())
                .singleElement().satisfies(r -> {
                    assertThat(r.getResourceNames()).containsExactly("hpa-controller");
                    assertThat(r.getVerbs()).as("read and renew (update guarded by resourceVersion); no patch").containsExactlyInAnyOrder("get", "update");
                });
    }

    @Test
    void bindingsGrantOnlyTheControllersServiceAccount() {
        List<Subject> subjects = Stream.concat(
                deploy.all(ClusterRoleBinding.class).stream().flatMap(b -> b.getSubjects().stream()),
                deploy.all(RoleBinding.class).stream().flatMap(b -> b.getSubjects().stream())).toList();

        assertThat(subjects).isNotEmpty().allSatisfy(s -> {
            assertThat(s.getKind()).isEqualTo("ServiceAccount");
            assertThat(s.getName()).isEqualTo("hpa-controller");
            assertThat(s.getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        });
    }

    @Test
    void containerRunsAsNonRootWithoutPrivilegeEscalationAndWithNoCapabilities() {
        PodSpec pod = deploy.single(Deployment.class).getSpec().getTemplate().getSpec();

        assertThat(PodSecurityReview.violations(pod)).isEmpty();
    }

    @Test
    void rbacReviewCatchesWhatItIsMeantToCatch() {
        List<PolicyRule> bad = List.of(
                rule("", List.of("secrets"), "get"),
                rule("apps", List.of("deployments"), "*"),
                rule("", List.of("*"), "list"),
                rule("rbac.authorization.k8s.io", List.of("clusterroles"), "escalate", "bind"),
                rule("", List.of("users"), "impersonate"),
                rule("apps", List.of("deployments"), "update"),
                rule("", List.of("pods"), "delete"));

        assertThat(RbacReview.violations(bad)).containsExactlyInAnyOrder(
                "[get] on [secrets] in []: touches secrets",
                "[*] on [deployments] in [apps]: wildcard verb",
                "[*] on [deployments] in [apps]: writes deployments",
                "[list] on [*] in []: wildcard resource outside the custom and external metrics APIs",
                "[escalate, bind] on [clusterroles] in [rbac.authorization.k8s.io]: privilege verb escalate",
                "[escalate, bind] on [clusterroles] in [rbac.authorization.k8s.io]: privilege verb bind",
                "[impersonate] on [users] in []: privilege verb impersonate",
                "[update] on [deployments] in [apps]: writes deployments",
                "[delete] on [pods] in []: deletes (delete)",
                "[delete] on [pods] in []: writes pods");
    }

    @Test
    void podSecurityReviewCatchesARootPrivilegedContainer() {
        PodSpec bad = new PodSpecBuilder()
                .addNewContainer().withName("c")
                .withNewSecurityContext().withRunAsUser(0L).withPrivileged(true)
                .withNewCapabilities().addToAdd("NET_ADMIN").endCapabilities()
                .endSecurityContext().endContainer()
                .build();

        assertThat(PodSecurityReview.violations(bad)).containsExactlyInAnyOrder(
                "container c: runAsNonRoot is not true",
                "container c: runs as UID 0",
                "container c: allowPrivilegeEscalation is not false",
                "container c: privileged",
                "container c: does not drop ALL capabilities",
                "container c: root filesystem is writable",
                "container c: seccomp profile is null");
    }

    private static PolicyRule rule(String group, List<String> resources, String... verbs) {
        return new PolicyRuleBuilder().withApiGroups(group).withResources(resources).withVerbs(verbs).build();
    }
}
