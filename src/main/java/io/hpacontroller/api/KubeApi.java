package io.hpacontroller.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.port.ApiException;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
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
    /** How much of an error answer {@link #getStreamed} reads for its message. */
    private static final int MAX_ERROR_BODY = 64 * 1024;
    /** Ends the streamed reads that outlive their timeout. */
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "api-read-deadlines");
        t.setDaemon(true);
        return t;
    });

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

    /** The same API with another timeout per request (the metrics APIs' {@code --metrics-request-timeout}). */
    public KubeApi withTimeout(Duration requestTimeout) {
        return new KubeApi(http, base, serialization, requestTimeout, retryReads);
    }

    public KubernetesSerialization serialization() {
        return serialization;
    }

    /** A query parameter's value, form-encoded (a name in the path goes through {@link PathSegment#encode} instead). */
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
        return read(() -> send(http.newHttpRequestBuilder().uri(base + path), path, "GET"));
    }

    /** A read that may be sent twice. */
    @FunctionalInterface
    private interface Read<T> {
        T send() throws ApiException;
    }

    /** Sends the read; once more after a transient failure when {@link #retryingReadsOnce} asked for it. */
    private <T> T read(Read<T> read) throws ApiException {
        try {
            return read.send();
        } catch (Transient e) {
            if (!retryReads) {
                throw e;
            }
            return read.send();
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

    /** Reads a response body as it arrives. */
    @FunctionalInterface
    public interface BodyReader<T> {
        T read(InputStream body) throws IOException, ApiException;
    }

    /**
     * A GET whose answer is read as a stream, never held whole: at most {@code maxBytes} of it (past that the
     * read stops, the request is cancelled and the call fails), all of it within the timeout. An answer outside
     * 2xx fails as {@link #get(String)} does (its first {@value #MAX_ERROR_BODY} bytes are read for the message).
     *
     * @param bound what sets {@code maxBytes}, for the error ("--metrics-max-response-bytes")
     */
    public <T> T getStreamed(String path, long maxBytes, String bound, BodyReader<T> reader) throws ApiException {
        return read(() -> getStreamedOnce(path, maxBytes, bound, reader));
    }

    private <T> T getStreamedOnce(String path, long maxBytes, String bound, BodyReader<T> reader) throws ApiException {
        long start = System.nanoTime();
        String url = base + path;
        InputStream body = null;
        ScheduledFuture<?> deadline = null;
        CompletableFuture<HttpResponse<InputStream>> sent = http.sendAsync(http.newHttpRequestBuilder().uri(url)
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build(), InputStream.class);
        try {
            HttpResponse<InputStream> response = sent.get(timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
            body = response.body();
            requireSuccess(response, path);
            deadline = closeAtDeadline(body, start);
            return reader.read(new BoundedInputStream(body, maxBytes));
        } catch (BoundedInputStream.TooLarge e) {
            throw new ApiException("the answer is larger than " + maxBytes + " bytes (" + bound + ")");
        } catch (IOException e) {
            if (deadline != null && deadline.isDone()) {
                throw new ApiException(ApiErrorText.timeoutReadingBody("GET", url));
            }
            throw new ApiException(ApiErrorText.transport("GET", url, e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException("GET " + path + ": interrupted");
        } catch (ExecutionException e) {
            throw sendFailure(e, "GET", url);
        } catch (TimeoutException e) {
            sent.thenAccept(late -> closeQuietly(late.body())); // an answer that comes after all holds no connection
            throw new Transient(ApiErrorText.timeout("GET", url), e);
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
            closeQuietly(body);
            ApiCallStats.record(System.nanoTime() - start);
        }
    }

    /** Throws the API server's failure when the answer is not a 2xx, with the start of its body. */
    private void requireSuccess(HttpResponse<InputStream> response, String path) throws IOException, ApiException {
        if (response.code() < 200 || response.code() >= 300) {
            String text = new String(response.body().readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
            throw failure(response.code(), "GET", path, response.header("Content-Type"), text);
        }
    }

    /**
     * Closes the answer when the request's time (from {@code start}) is up: a stalled answer blocks a read, and
     * closing the stream cancels the request and ends the read.
     */
    private ScheduledFuture<?> closeAtDeadline(InputStream answer, long start) {
        long left = timeout.plus(GRACE).toNanos() - (System.nanoTime() - start);
        return DEADLINES.schedule(() -> closeQuietly(answer), Math.max(left, 0), TimeUnit.NANOSECONDS);
    }

    private static void closeQuietly(InputStream in) {
        if (in != null) {
            try {
                in.close();
            } catch (IOException | RuntimeException e) {
                // the request is over either way
            }
        }
    }

    private ApiException failure(int code, String verb, String path, String contentType, String body) {
        String message = ApiErrorText.of(code, verb, path, contentType, body, serialization);
        if (code == 404) {
            return new ApiException.NotFound(message);
        }
        if (code == 409) {
            return new ApiException.Conflict(message);
        }
        return code == 429 || code >= 500 && code != 501 ? new Transient(message, null) : new ApiException(message);
    }

    private static ApiException sendFailure(ExecutionException e, String verb, String url) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (cause instanceof java.net.http.HttpTimeoutException || cause instanceof TimeoutException) {
            return new Transient(ApiErrorText.timeout(verb, url), cause);
        }
        return new Transient(ApiErrorText.transport(verb, url, cause), cause);
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
            throw failure(code, verb, path, response.header("Content-Type"), body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(verb + " " + path + ": interrupted");
        } catch (ExecutionException e) {
            throw sendFailure(e, verb, base + path);
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
