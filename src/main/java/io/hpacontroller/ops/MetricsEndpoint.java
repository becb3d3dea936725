package io.hpacontroller.ops;

import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import io.prometheus.metrics.expositionformats.PrometheusProtobufWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /metrics}: the registry in the format the scraper asks for (the Prometheus client's scrape handler):
 * the text format or OpenMetrics. The protobuf format's jar is left out (pom.xml), and the handler would then fail a
 * scrape that asks for it: its media type is taken out of the Accept header, so that scrape gets the text format.
 */
final class MetricsEndpoint implements EndpointServer.Handler {

    static final String PATH = "/metrics";
    private static final boolean PROTOBUF = new PrometheusProtobufWriter().isAvailable();

    private final PrometheusScrapeHandler scrape;

    MetricsEndpoint(PrometheusRegistry registry) {
        this.scrape = new PrometheusScrapeHandler(registry);
    }

    @Override
    public EndpointServer.Response handle(EndpointServer.Request request) throws IOException {
        if (!request.isGetOrHead()) {
            return EndpointServer.Response.onlyGet();
        }
        Exchange exchange = new Exchange(request);
        scrape.handleRequest(exchange);
        return exchange.response();
    }

    /** One scrape, its answer buffered. */
    private static final class Exchange implements PrometheusHttpExchange, PrometheusHttpRequest, PrometheusHttpResponse {
        private final EndpointServer.Request request;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private int status = 500;

        Exchange(EndpointServer.Request request) {
            this.request = request;
        }

        EndpointServer.Response response() {
            return new EndpointServer.Response(status, headers, body.toByteArray());
        }

        @Override
        public PrometheusHttpRequest getRequest() {
            return this;
        }

        @Override
        public PrometheusHttpResponse getResponse() {
            return this;
        }

        @Override
        public void handleException(IOException e) throws IOException {
            throw e;
        }

        @Override
        public void handleException(RuntimeException e) {
            throw e;
        }

        @Override
        public void close() {
        }

        @Override
        public String getQueryString() {
            return request.query();
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            String lower = name.toLowerCase(java.util.Locale.ROOT);
            List<String> values = request.headers().get(lower);
            if (values == null) {
                return Collections.emptyEnumeration();
            }
            return Collections.enumeration(lower.equals("accept") && !PROTOBUF ? withoutProtobuf(values) : values);
        }

        /** The Accept header's media types but protobuf's ("application/vnd.google.protobuf;proto=..."). */
        private static List<String> withoutProtobuf(List<String> accept) {
            String kept = accept.stream().flatMap(v -> java.util.Arrays.stream(v.split(",")))
                    .filter(type -> !type.strip().startsWith(PrometheusProtobufWriter.CONTENT_TYPE.split(";")[0]))
                    .collect(java.util.stream.Collectors.joining(","));
            return kept.isBlank() ? List.of() : List.of(kept);
        }

        @Override
        public String getMethod() {
            return request.method();
        }

        @Override
        public String getRequestPath() {
            return request.path();
        }

        @Override
        public void setHeader(String name, String value) {
            headers.put(name, value);
        }

        @Override
        public OutputStream sendHeadersAndGetBody(int statusCode, int contentLength) {
            status = statusCode;
            return body;
        }
    }
}
