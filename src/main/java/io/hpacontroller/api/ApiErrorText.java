package io.hpacontroller.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hpacontroller.core.GoText;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A failed API request in client-go's words, so that conditions and events read as under
 * kube-controller-manager: the API server's Status message when it sent one ({@code errors.FromObject}),
 * else {@code errors.NewGenericServerResponse}'s text for the code with the resource asked for
 * ({@code the server could not find the requested resource (get pods.metrics.k8s.io)}); a request that got no
 * answer reads as Go's {@code url.Error} ({@code Get "https://...": context deadline exceeded}).
 */
final class ApiErrorText {

    /** client-go reads at most this much of a body that is not a Status. */
    private static final int MAX_UNSTRUCTURED_BODY = 2048;

    private ApiErrorText() {
    }

    /**
     * The error for an answer outside 2xx.
     *
     * @param path        the request path (query included or not)
     * @param contentType the response's Content-Type, null when absent
     */
    static String of(int code, String method, String path, String contentType, String body, KubernetesSerialization json) {
        String status = statusMessage(body, json);
        if (status != null) {
            return status;
        }
        String serverMessage = "unknown";
        if (isText(contentType)) {
            String text = body == null ? "" : body;
            serverMessage = (text.length() > MAX_UNSTRUCTURED_BODY ? text.substring(0, MAX_UNSTRUCTURED_BODY) : text).trim();
        }
        return generic(code, method, serverMessage) + qualifier(method, path);
    }

    /** The error for a request that got no answer in time. */
    static String timeout(String method, String url) {
        return urlError(method, url, "context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
    }

    /** The error for an answer whose body did not arrive whole in time. */
    static String timeoutReadingBody(String method, String url) {
        return urlError(method, url, "context deadline exceeded (Client.Timeout or context cancellation while reading body)");
    }

    /** The error for a request that failed below HTTP (connection refused, TLS, reset). */
    static String transport(String method, String url, Throwable cause) {
        return urlError(method, url, TransportFailure.describe(cause, URI.create(url)));
    }

    /** Go's {@code url.Error}: {@code Get "https://host/path": error}. */
    private static String urlError(String method, String url, String error) {
        String op = method.charAt(0) + method.substring(1).toLowerCase(Locale.ROOT);
        return op + " " + GoText.quote(url) + ": " + error;
    }

    /** A failed Status object's message (what client-go returns as the error), or null when the body is none. */
    private static String statusMessage(String body, KubernetesSerialization json) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            JsonNode status = json.unmarshal(body, JsonNode.class);
            if (status != null && "Status".equals(status.path("kind").asText()) && "Failure".equals(status.path("status").asText())
                    && !status.path("message").asText("").isEmpty()) {
                return status.get("message").asText();
            }
        } catch (RuntimeException e) {
            // not JSON: an unstructured answer
        }
        return null;
    }

    /** client-go's isTextResponse: no Content-Type, or a text/* one. */
    private static boolean isText(String contentType) {
        return contentType == null || contentType.isBlank() || contentType.trim().toLowerCase(Locale.ROOT).startsWith("text/");
    }

    /** {@code errors.NewGenericServerResponse}'s message for the code. */
    private static String generic(int code, String method, String serverMessage) {
        return switch (code) {
            case 409 -> "the server reported a conflict";
            case 404 -> "the server could not find the requested resource";
            case 400 -> "the server rejected our request for an unknown reason";
            case 401 -> "the server has asked for the client to provide credentials";
            case 403 -> serverMessage;
            case 406 -> serverMessage.isEmpty() || "unknown".equals(serverMessage)
                    ? "the server was unable to respond with a content type that the client supports" : serverMessage;
            case 415 -> serverMessage;
            case 405 -> "the server does not allow this method on the requested resource";
            case 422 -> "the server rejected our request due to an error in our request";
            case 503 -> "the server is currently unable to handle the request";
            case 504 -> "the server was unable to return a response in the time allotted, but may still be processing the request";
            case 429 -> "the server has received too many requests and has asked us to try again later";
            default -> code >= 500
                    ? "an error on the server (" + GoText.quote(serverMessage) + ") has prevented the request from succeeding"
                    : "the server responded with the status code " + code + " but did not return more information";
        };
    }

    /** A name as {@link PathSegment} encoded it (no {@code +} stands for a space there), as client-go prints it. */
    private static String decoded(String segment) {
        try {
            return URLDecoder.decode(segment, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return segment;
        }
    }

    /**
     * " (get pods.metrics.k8s.io)", " (get deployments.apps web)": the verb, the resource with its group and the
     * name the request path names, as client-go appends them.
     */
    private static String qualifier(String method, String path) {
        String p = path;
        int query = p.indexOf('?');
        if (query >= 0) {
            p = p.substring(0, query);
        }
        String[] s = p.replaceAll("^/+", "").split("/");
        int rest;
        String group;
        if (s.length >= 2 && "api".equals(s[0])) {
            group = "";
            rest = 2;
        } else if (s.length >= 3 && "apis".equals(s[0])) {
            group = s[1];
            rest = 3;
        } else {
            return "";
        }
        if (s.length >= rest + 3 && "namespaces".equals(s[rest])) {
            rest += 2;  // namespaces/NS/resource...
        }
        if (s.length <= rest) {
            return "";
        }
        String resource = s[rest] + (group.isEmpty() ? "" : "." + group);
        String name = s.length > rest + 1 ? " " + decoded(s[rest + 1]) : "";
        return " (" + method.toLowerCase(Locale.ROOT) + " " + resource + name + ")";
    }
}
