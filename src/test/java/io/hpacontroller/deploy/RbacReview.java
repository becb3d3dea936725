package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The least-privilege rules the controller's RBAC must keep (issue 5, "Security"): what a reviewer
 * checks by eye, as code. Each violation is one line naming the rule.
 */
final class RbacReview {

    static final Set<String> WRITE_VERBS = Set.of("create", "update", "patch", "delete", "deletecollection");
    static final Set<String> PRIVILEGE_VERBS = Set.of("escalate", "bind", "impersonate");
    /** Metric names are the resources of these groups, so "*" is the only way to grant them (read-only). */
    static final Set<String> WILDCARD_RESOURCE_GROUPS = Set.of("custom.metrics.k8s.io", "external.metrics.k8s.io");

    private RbacReview() {
    }

    static List<String> violations(List<PolicyRule> rules) {
        List<String> found = new ArrayList<>();
        for (PolicyRule rule : rules) {
            String name = describe(rule);
            if (!rule.getNonResourceURLs().isEmpty()) {
                found.add(name + ": grants non-resource URLs");
            }
            if (rule.getApiGroups().contains("*")) {
                found.add(name + ": wildcard API group");
            }
            if (rule.getResources().stream().anyMatch(r -> r.equals("secrets") || r.startsWith("secrets/"))) {
                found.add(name + ": touches secrets");
            }
            if (rule.getResources().contains("*") && !WILDCARD_RESOURCE_GROUPS.containsAll(rule.getApiGroups())) {
                found.add(name + ": wildcard resource outside the custom and external metrics APIs");
            }
            if (rule.getVerbs().contains("*")) {
                found.add(name + ": wildcard verb");
            }
            rule.getVerbs().stream().filter(PRIVILEGE_VERBS::contains)
                    .forEach(v -> found.add(name + ": privilege verb " + v));
            rule.getVerbs().stream().filter(v -> v.equals("delete") || v.equals("deletecollection"))
                    .forEach(v -> found.add(name + ": deletes (" + v + ")"));
            boolean writes = rule.getVerbs().stream().anyMatch(v -> WRITE_VERBS.contains(v) || v.equals("*"));
            if (writes) {
                rule.getResources().stream().filter(r -> !writable(r))
                        .forEach(r -> found.add(name + ": writes " + r));
            }
        }
        return found;
    }

    /**
     * The only objects the controller writes: scale subresources, HPA status, events, its Lease, the HPAs' kept histories;
     * and the reviews of the metrics port's requests (created, never stored).
     */
    private static boolean writable(String resource) {
        return resource.endsWith("/scale") && !resource.startsWith("*")
                || resource.equals("horizontalpodautoscalers/status")
                || resource.equals("horizontalpodautoscalerhistories")
                || resource.equals("events")
                || resource.equals("leases")
                || resource.equals("tokenreviews")
                || resource.equals("subjectaccessreviews");
    }

    private static String describe(PolicyRule rule) {
        return rule.getVerbs() + " on " + rule.getResources() + " in " + rule.getApiGroups();
    }
}
