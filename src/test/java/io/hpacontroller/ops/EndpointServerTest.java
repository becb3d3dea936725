package io.hpacontroller.ops;

import io.hpacontroller.testing.TrustingHttps;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link EndpointServer}: slow clients cost their own connection only; deadlines, the connection cap, malformed requests. */
class EndpointServerTest {

    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);
    private static final EndpointServer.Handler ECHO = request -> EndpointServer.Response.text(200, request.method() + " " + request.path());

    @Test
    void overTlsAScrapeAnswersWhileFiftyClientsStallTheirHandshakeOrTheirRequest() throws Exception {
        SSLContext tls = ServingCertificate.selfSigned(Instant.now(), "localhost").context();
        try (EndpointServer server = EndpointServer.start("metrics", ANY_PORT, tls, ECHO, EndpointServer.Limits.DEFAULT);
             // half a TLS ClientHello record header, then a byte every 200 ms: the handshake never completes
             var slow = new HealthServerTest.SlowClients(server.port(), HealthServerTest.SLOW_CLIENTS, new byte[] {0x16, 0x03, 0x01})) {
            Thread.sleep(500);
            List<Long> millis = HealthServerTest.probe(TrustingHttps.client(HealthServerTest.CEILING), URI.create("https://127.0.0.1:" + server.port() + "/metrics"), 20, 200);
            System.out.println("EndpointServerTest: HTTPS with " + HealthServerTest.SLOW_CLIENTS + " stalled handshakes: "
                    + HealthServerTest.summary(millis));
        }
    }

    @Test
    void aClientThatTricklesItsRequestIsClosedAtTheReadDeadline() throws Exception {
        EndpointServer.Limits limits = new EndpointServer.Limits(Duration.ofSeconds(1), Duration.ofSeconds(5), 16 * 1024, 16);
        try (EndpointServer server = EndpointServer.start("health", ANY_PORT, null, ECHO, limits);
             var slow = new HealthServerTest.SlowClients(server.port(), 3, "GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII))) {
            long start = System.nanoTime();
            // the trickler keeps writing; the server closes each connection about a second after its accept
            while (server.openConnections() > 0) {
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("closed at the deadline").isLessThan(Duration.ofSeconds(30));
                Thread.sleep(50);
            }
        }
    }

    @Test
    void beyondTheCapTheConnectionWaitingLongestForItsRequestIsClosed() throws Exception {
        EndpointServer.Limits limits = new EndpointServer.Limits(Duration.ofSeconds(60), Duration.ofSeconds(5), 16 * 1024, 10);
        try (EndpointServer server = EndpointServer.start("health", ANY_PORT, null, ECHO, limits);
             var slow = new HealthServerTest.SlowClients(server.port(), 30, "GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII))) {
            Thread.sleep(500);
            assertThat(server.openConnections()).isLessThanOrEqualTo(10);
            List<Long> millis = HealthServerTest.probe(HttpClient.newHttpClient(), URI.create("http://127.0.0.1:" + server.port() + "/healthz"), 5, 200);
            assertThat(millis).hasSize(5);
        }
    }

    @Test
    void malformedOversizedAndAmbiguousRequestsAreRefused() throws Exception {
        try (EndpointServer server = EndpointServer.start("metrics", ANY_PORT, null, ECHO, EndpointServer.Limits.DEFAULT)) {
            assertThat(exchange(server, "GET /decisions/shop/web HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200 OK\r\n")
                    .contains("Content-Length: 23\r\n", "Connection: close\r\n").endsWith("GET /decisions/shop/web");
            assertThat(exchange(server, "HEAD /metrics HTTP/1.0\n\n")).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n");
            // one path authorized, another served: refused
            assertThat(exchange(server, "GET /metrics/../decisions/shop/web HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
            assertThat(exchange(server, "GET /metrics/%2e%2e/decisions/shop/web HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
            assertThat(exchange(server, "GET //metrics HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
            assertThat(exchange(server, "GET metrics HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
            assertThat(exchange(server, "hello\r\n\r\n")).startsWith("HTTP/1.1 400 ");
            assertThat(exchange(server, "GET /metrics HTTP/1.1\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n")).startsWith("HTTP/1.1 431 ");
        }
    }

    @Test
    void aHandlerThatThrowsIsA500() throws Exception {
        try (EndpointServer server = EndpointServer.start("metrics", ANY_PORT, null, request -> {
            throw new IllegalStateException("boom");
        }, EndpointServer.Limits.DEFAULT)) {
            assertThat(exchange(server, "GET /metrics HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 500 ").doesNotContain("boom");
        }
    }

    /** What the server answers to the bytes of {@code request}, read until it closes the connection. */
    private static String exchange(EndpointServer server, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            List<Byte> bytes = new ArrayList<>();
            try {
                for (int b = in.read(); b >= 0; b = in.read()) {
                    bytes.add((byte) b);
                }
            } catch (IOException resetAfterTheAnswer) {
                // an unread body makes the close a reset; the answer came before it
            }
            byte[] out = new byte[bytes.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = bytes.get(i);
            }
            return new String(out, StandardCharsets.ISO_8859_1);
        }
    }
}
