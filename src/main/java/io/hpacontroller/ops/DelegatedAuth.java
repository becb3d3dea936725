package io.hpacontroller.ops;

import com.fasterxml.jackson.databind.JsonNode;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.core.port.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Delegated authentication and authorization, as kube-controller-manager's secure port and controller-runtime's
 * {@code filters.WithAuthenticationAndAuthorization} do: the bearer token is reviewed by the API server
 * (TokenReview), and the user it names must be allowed to {@code get} the request's path (SubjectAccessReview of a
 * non-resource URL: {@code /metrics}, {@code /decisions/NAMESPACE/NAME}; RBAC grants them with {@code nonResourceURLs},
 * {@code /decisions/*} for all). No token, or one the API server does not accept: 401. A user not allowed: 403. A
 * review that cannot be made: 401 (authentication) or 500 (authorization), not kept. Both reviews' answers are kept
 * {@value #TTL_SECONDS} s, as the delegating authenticator and authorizer keep theirs, at most {@value #MAX_KEPT} each;
 * the tokens the API server refused apart from those it accepted, so that a flood of bogus tokens evicts no user.
 *
 * <p>Failed authentication is rate-limited, which kube-controller-manager's port is not: each TokenReview that refuses
 * a token takes one of {@value #FAILED_REVIEWS_BURST} failures, given back at {@value #FAILED_REVIEWS_PER_SECOND} a
 * second; while none is left, a token neither known to the caches nor accepted before is answered 429 with
 * {@code Retry-After} and not reviewed. So a flood of distinct bogus tokens costs a review a second, not one a
 * request, and a user already seen (its token in the positive cache, even expired) is still reviewed and served.
 */
final class DelegatedAuth {

    private static final Logger LOG = LoggerFactory.getLogger(DelegatedAuth.class);
    static final long TTL_SECONDS = 10;
    static final int MAX_KEPT = 1024;
    static final int FAILED_REVIEWS_BURST = 20;
    static final int FAILED_REVIEWS_PER_SECOND = 1;
    static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    static final String SUBJECT_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

    /** Who a token names, as the TokenReview said. */
    record User(String name, String uid, List<String> groups, Map<String, List<String>> extra) {
    }

    private record Kept<T>(T value, long until) {
    }

    private final KubeApi api;
    private final LongSupplier nanos;
    /** By the SHA-256 of the token: the user the API server said it names (an entry expired stays until evicted). */
    private final Map<String, Kept<User>> users;
    /** The SHA-256 of the tokens the API server did not accept. */
    private final Map<String, Kept<Boolean>> refused;
    /**
     * Failed reviews left (a token bucket, {@link #failures}: a few lines of our own, as {@code EventCorrelator}'s spam
     * filter, rather than a library's limiter for one counter), in nanos: the time the bucket was full; guarded by itself.
     */
    private final long[] failuresFullAt = {Long.MIN_VALUE};
    /** By user and path: allowed or not. */
    private final Map<String, Kept<Boolean>> decisions;

    DelegatedAuth(KubeApi api, LongSupplier nanos) {
        this(api, nanos, MAX_KEPT);
    }

    /** @param maxKept the answers kept of each kind (tests keep fewer) */
    DelegatedAuth(KubeApi api, LongSupplier nanos, int maxKept) {
        this.api = api;
        this.nanos = nanos;
        this.users = lru(maxKept);
        this.refused = lru(maxKept);
        this.decisions = lru(maxKept);
    }

    private static <T> Map<String, Kept<T>> lru(int maxKept) {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Kept<T>> eldest) {
                return size() > maxKept;
            }
        };
    }

    /** {@code inner} behind the reviews. */
    EndpointServer.Handler protect(EndpointServer.Handler inner) {
        return request -> {
            EndpointServer.Response refusal = refusal(request);
            return refusal != null ? refusal : inner.handle(request);
        };
    }

    /** The answer refusing the request, or null when it may be served. */
    EndpointServer.Response refusal(EndpointServer.Request request) {
        String authorization = request.header("Authorization");
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7) || authorization.substring(7).isBlank()) {
            return EndpointServer.Response.text(401, "Unauthorized: a bearer token is needed\n");
        }
        User user;
        try {
            user = authenticate(authorization.substring(7).trim());
        } catch (TooManyFailures e) {
            return new EndpointServer.Response(429, Map.of("Content-Type", "text/plain; charset=utf-8", "Retry-After", "1"),
                    "Too Many Requests: too many failed authentications, retry later\n".getBytes(StandardCharsets.UTF_8));
        } catch (ApiException e) {
            LOG.warn("cannot authenticate a request for {}: the TokenReview failed: {}", request.path(), e.getMessage());
            return EndpointServer.Response.text(401, "Unauthorized\n");
        }
        if (user == null) {
            return EndpointServer.Response.text(401, "Unauthorized\n");
        }
        String verb = request.method().toLowerCase(Locale.ROOT);
        boolean allowed;
        try {
            allowed = authorize(user, verb, request.path());
        } catch (ApiException e) {
            LOG.warn("cannot authorize {} {} for {}: the SubjectAccessReview failed: {}", verb, request.path(), user.name(), e.getMessage());
            return EndpointServer.Response.text(500, "Internal Server Error: the authorization check failed\n");
        }
        if (!allowed) {
            return EndpointServer.Response.text(403, "forbidden: User \"" + user.name() + "\" cannot " + verb + " path \"" + request.path() + "\"\n");
        }
        return null;
    }

    private <T> Kept<T> kept(Map<String, Kept<T>> cache, String key) {
        synchronized (cache) {
            Kept<T> k = cache.get(key);
            return k != null && nanos.getAsLong() - k.until() < 0 ? k : null;
        }
    }

    private <T> void keep(Map<String, Kept<T>> cache, String key, T value) {
        synchronized (cache) {
            cache.put(key, new Kept<>(value, nanos.getAsLong() + Duration.ofSeconds(TTL_SECONDS).toNanos()));
        }
    }

    /** A token not reviewed: too many reviews refused tokens lately. */
    static final class TooManyFailures extends ApiException {
        TooManyFailures() {
            super("too many failed authentications");
        }
    }

    /** The user the token names, null when the API server does not accept it. */
    User authenticate(String token) throws ApiException {
        String key = sha256(token);
        Kept<User> k = kept(users, key);
        if (k != null) {
            return k.value();
        }
        if (kept(refused, key) != null) {
            return null;
        }
        boolean seen;
        synchronized (users) {
            seen = users.containsKey(key);
        }
        if (!seen && failures(0) <= 0) {
            throw new TooManyFailures();
        }
        JsonNode status = review(TOKEN_REVIEWS, Map.of("apiVersion", "authentication.k8s.io/v1", "kind", "TokenReview",
                "spec", Map.of("token", token)));
        User user = null;
        if (status.path("authenticated").asBoolean(false)) {
            JsonNode u = status.path("user");
            List<String> groups = new ArrayList<>();
            u.path("groups").forEach(g -> groups.add(g.asText()));
            Map<String, List<String>> extra = new TreeMap<>();
            u.path("extra").fields().forEachRemaining(e -> {
                List<String> values = new ArrayList<>();
                e.getValue().forEach(v -> values.add(v.asText()));
                extra.put(e.getKey(), values);
            });
            user = new User(u.path("username").asText(), u.path("uid").asText(""), List.copyOf(groups), extra);
            keep(users, key, user);
        } else {
            keep(refused, key, true);
            failures(1);
        }
        return user;
    }

    /** Takes {@code taken} failures from the bucket; how many were left before. */
    private long failures(int taken) {
        long now = nanos.getAsLong();
        long perFailure = 1_000_000_000L / FAILED_REVIEWS_PER_SECOND;
        synchronized (failuresFullAt) {
            long full = Math.max(failuresFullAt[0], now - FAILED_REVIEWS_BURST * perFailure); // no more than the burst saved up
            long left = (now - full) / perFailure;
            failuresFullAt[0] = full + taken * perFailure;
            return left;
        }
    }

    /** Whether the user may {@code verb} the non-resource URL {@code path}. */
    boolean authorize(User user, String verb, String path) throws ApiException {
        String key = user.name() + "\n" + user.uid() + "\n" + user.groups() + "\n" + user.extra() + "\n" + verb + " " + path;
        Kept<Boolean> k = kept(decisions, key);
        if (k != null) {
            return k.value();
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("user", user.name());
        if (!user.uid().isEmpty()) {
            spec.put("uid", user.uid());
        }
        spec.put("groups", user.groups());
        if (!user.extra().isEmpty()) {
            spec.put("extra", user.extra());
        }
        spec.put("nonResourceAttributes", Map.of("path", path, "verb", verb));
        boolean allowed = review(SUBJECT_ACCESS_REVIEWS, Map.of("apiVersion", "authorization.k8s.io/v1", "kind", "SubjectAccessReview",
                "spec", spec)).path("allowed").asBoolean(false);
        keep(decisions, key, allowed);
        return allowed;
    }

    /** For tests: the tokens whose reviews are kept (accepted and refused; each map is bounded). */
    int tokensKept() {
        synchronized (users) {
            synchronized (refused) {
                return users.size() + refused.size();
            }
        }
    }

    private JsonNode review(String path, Map<String, Object> body) throws ApiException {
        String answer = api.post(path, body);
        try {
            return api.serialization().unmarshal(answer, JsonNode.class).path("status");
        } catch (RuntimeException e) {
            throw new ApiException("POST " + path + ": the answer is not JSON: " + e.getMessage());
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
