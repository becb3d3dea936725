package io.hpacontroller.live;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.reconcile.ApiException;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Plain HTTP calls to the API server through the fabric8 client's HTTP stack (its authentication,
 * TLS and proxy settings), for the endpoints the typed DSL does not cover well: scale subresources
 * of any kind, the three metrics APIs, and status writes whose conflicts we want to see.
 *
 * <p>Failures map to {@link ApiException}: 404 is {@link ApiException.NotFound}, 409 is
 * {@link ApiException.Conflict}; the message reads as client-go's ({@link ApiErrorText}): the API server's own
 * when it sent one, else client-go's text for the code and the resource.
 * Every call is counted and timed in {@link ApiCallStats} for the calling thread.
 *
 * <p>The controller never retries a call (a failing sync waits for the next one, as upstream's); a one-off command
 * ({@code explain}) asks for {@link #retryingReadsOnce}: a read that failed in a way that may pass (no answer, a
 * timeout, 429 or 5xx) is sent once more.
 */
public final class KubeApi {

    /** How much longer than its timeout a call may take before it is abandoned (the response future's grace). */
    public static final Duration GRACE = Duration.ofSeconds(1);

    private final HttpClient http;
    private final String base;
    private final KubernetesSerialization serialization;
    private final Duration timeout;
    private final boolean retryReads;

    public KubeApi(KubernetesClient client, Duration timeout) {
        this(client.getHttpClient(), client.getMasterUrl().toString(), client.getKubernetesSerialization(), timeout, false);
    }

    private KubeApi(HttpClient http, String url, KubernetesSerialization serialization, Duration timeout, boolean retryReads) {
        this.http = http;
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.serialization = serialization;
        this.timeout = timeout;
        this.retryReads = retryReads;
    }

    /** The same API, with each GET that failed in a way that may pass (no answer, a timeout, 429, 5xx) sent once more. */
    public KubeApi retryingReadsOnce() {
        return new KubeApi(http, base, serialization, timeout, true);
    }

    public KubernetesSerialization serialization() {
        return serialization;
    }

    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    public JsonNode getJson(String path) throws ApiException {
        return serialization.unmarshal(get(path), JsonNode.class);
    }

    public <T> T get(String path, Class<T> type) throws ApiException {
        return serialization.unmarshal(get(path), type);
    }

    public String get(String path) throws ApiException {
        try {
            return send(http.newHttpRequestBuilder().uri(base + path), path, "GET");
        } catch (Transient e) {
            if (!retryReads) {
                throw e;
            }
            return send(http.newHttpRequestBuilder().uri(base + path), path, "GET");
        }
    }

    public String put(String path, Object body) throws ApiException {
        return send(http.newHttpRequestBuilder().uri(base + path).put("application/json", serialization.asJson(body)), path, "PUT");
    }

    public String post(String path, Object body) throws ApiException {
        return send(http.newHttpRequestBuilder().uri(base + path).post("application/json", serialization.asJson(body)), path, "POST");
    }

    public String mergePatch(String path, String patch) throws ApiException {
        return send(http.newHttpRequestBuilder().uri(base + path).patch("application/merge-patch+json", patch), path, "PATCH");
    }

    private String send(HttpRequest.Builder builder, String path, String verb) throws ApiException {
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.sendAsync(builder.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build(), String.class)
                    .get(timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
            int code = response.code();
            String body = response.body();
            if (code >= 200 && code < 300) {
                return body == null ? "" : body;
            }
            String message = ApiErrorText.of(code, verb, path, response.header("Content-Type"), body, serialization);
            if (code == 404) {
                throw new ApiException.NotFound(message);
            }
            if (code == 409) {
                throw new ApiException.Conflict(message);
            }
            throw code == 429 || code >= 500 && code != 501 ? new Transient(message, null) : new ApiException(message);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(verb + " " + path + ": interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof java.net.http.HttpTimeoutException || cause instanceof TimeoutException) {
                throw new Transient(ApiErrorText.timeout(verb, base + path), cause);
            }
            throw new Transient(ApiErrorText.transport(verb, base + path, cause), cause);
        } catch (TimeoutException e) {
            throw new Transient(ApiErrorText.timeout(verb, base + path), e);
        } finally {
            ApiCallStats.record(System.nanoTime() - start);
        }
    }

    /** A failure that may pass if the call is made again: no answer, a timeout, 429 or a server error. */
    private static final class Transient extends ApiException {
        Transient(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
