package io.hpacontroller.testing.kube;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * One request as kube-apiserver's audit log recorded it (stage ResponseComplete, level Metadata).
 *
 * @param user       who the request acted as (the impersonated user when the admin impersonated one)
 * @param podName    the Pod a service-account token was bound to ({@code authentication.kubernetes.io/pod-name}),
 *                   which tells two replicas of the same ServiceAccount apart; null otherwise
 * @param subresource "status", "scale", ... or null; for custom metrics the metric name
 * @param code       the response's HTTP status
 * @param received   when the request arrived; {@code completed} when the answer was complete
 */
public record AuditEvent(String auditId, String verb, String user, List<String> groups, String podName, String userAgent,
                         String requestUri, String apiGroup, String resource, String subresource, String namespace, String name,
                         int code, Instant received, Instant completed) {

    static AuditEvent parse(JsonNode e) {
        JsonNode ref = e.path("objectRef");
        List<String> groups = new ArrayList<>();
        (e.hasNonNull("impersonatedUser") ? e.get("impersonatedUser") : e.path("user")).path("groups").forEach(g -> groups.add(g.asText()));
        // the user the request acted as: the impersonated one when there is one
        JsonNode user = e.hasNonNull("impersonatedUser") ? e.get("impersonatedUser") : e.path("user");
        JsonNode pod = user.path("extra").path("authentication.kubernetes.io/pod-name").path(0);
        return new AuditEvent(e.path("auditID").asText(), e.path("verb").asText(), user.path("username").asText(),
                List.copyOf(groups), pod.isMissingNode() ? null : pod.asText(), text(e, "userAgent"), text(e, "requestURI"),
                text(ref, "apiGroup"), text(ref, "resource"), text(ref, "subresource"), text(ref, "namespace"), text(ref, "name"),
                e.path("responseStatus").path("code").asInt(0), Instant.parse(e.path("requestReceivedTimestamp").asText()),
                Instant.parse(e.path("stageTimestamp").asText()));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** A metrics.k8s.io pod query: one per sync of a one-metric Resource HPA, how the benchmarks count reconciles. */
    public boolean isPodMetricsQuery() {
        return "metrics.k8s.io".equals(apiGroup) && "pods".equals(resource);
    }

    /** A write: create, update, patch, delete, deletecollection. */
    public boolean isWrite() {
        return switch (verb) {
            case "create", "update", "patch", "delete", "deletecollection" -> true;
            default -> false;
        };
    }

    @Override
    public String toString() {
        return received + " " + user + (podName == null ? "" : "[" + podName + "]") + " " + verb + " " + requestUri + " -> " + code;
    }

    /** Which events to count: every condition given must hold. Immutable; each method returns a narrower filter. */
    public record Filter(Predicate<AuditEvent> condition) implements Predicate<AuditEvent> {

        public static Filter all() {
            return new Filter(e -> true);
        }

        @Override
        public boolean test(AuditEvent e) {
            return condition.test(e);
        }

        private Filter with(Predicate<AuditEvent> p) {
            return new Filter(condition.and(p));
        }

        public Filter user(String user) {
            return with(e -> user.equals(e.user()));
        }

        /** Requests with a token bound to this Pod (one replica of a controller). */
        public Filter pod(String podName) {
            return with(e -> podName.equals(e.podName()));
        }

        /** One of these verbs (get, list, watch, create, update, patch, delete). */
        public Filter verb(String... verbs) {
            List<String> v = List.of(verbs);
            return with(e -> v.contains(e.verb()));
        }

        public Filter writes() {
            return with(AuditEvent::isWrite);
        }

        /** The resource, e.g. "deployments" or "horizontalpodautoscalers". */
        public Filter resource(String resource) {
            return with(e -> resource.equals(e.resource()));
        }

        public Filter apiGroup(String group) {
            return with(e -> Objects.equals(group.isEmpty() ? null : group, e.apiGroup()));
        }

        /** The subresource ("status", "scale"); null for requests on the object itself. */
        public Filter subresource(String subresource) {
            return with(e -> Objects.equals(subresource, e.subresource()));
        }

        public Filter namespace(String namespace) {
            return with(e -> namespace.equals(e.namespace()));
        }

        public Filter name(String name) {
            return with(e -> name.equals(e.name()));
        }

        public Filter code(int code) {
            return with(e -> e.code() == code);
        }

        /** Requests received at or after this instant. */
        public Filter since(Instant from) {
            return with(e -> !e.received().isBefore(from));
        }

        /** Requests received before this instant. */
        public Filter before(Instant until) {
            return with(e -> e.received().isBefore(until));
        }

        public Filter between(Instant from, Instant until) {
            return since(from).before(until);
        }
    }
}
