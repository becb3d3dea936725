package io.hpacontroller.ops;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29.4: clients that hold connections to the health port open, each with half a request it trickles on, must not
 * delay the kubelet's probes. Before, the health server had one thread, which waited on the first such request: every
 * probe failed.
 */
class HealthServerTest {

    /** Slow clients held open at once. */
    static final int SLOW_CLIENTS = 50;
    /** A probe's own timeout here; the kubelet's default is 1 s. Generous on a loaded 2-core machine; the latencies are printed. */
    static final Duration CEILING = Duration.ofSeconds(5);

    /**
     * {@code count} connections to {@code port}, each sending half of a request at once and then one more byte of a
     * header every 200 ms, until closed.
     */
    static final class SlowClients implements AutoCloseable {
        private final List<Socket> sockets = new ArrayList<>();
        private final AtomicBoolean open = new AtomicBoolean(true);
        private final Thread trickler;

        SlowClients(int port, int count, byte[] opening) throws IOException {
            for (int i = 0; i < count; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                s.getOutputStream().write(opening);
                s.getOutputStream().flush();
                sockets.add(s);
            }
            trickler = new Thread(() -> {
                byte[] header = "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; open.get(); i = (i + 1) % header.length) {
                    for (Socket s : sockets) {
                        try {
                            OutputStream out = s.getOutputStream();
                            out.write(header[i]);
                            out.flush();
                        } catch (IOException closedByTheServer) {
                            // what a server with a read deadline does
                        }
                    }
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "slow-clients");
            trickler.setDaemon(true);
            trickler.start();
        }

        @Override
        public void close() throws IOException {
            open.set(false);
            trickler.interrupt();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /** Milliseconds each answered probe took; a probe not answered within the ceiling fails the test. */
    static List<Long> probe(HttpClient http, URI uri, int times, int expected) throws Exception {
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            long start = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(CEILING).build(), HttpResponse.BodyHandlers.ofString());
            millis.add((System.nanoTime() - start) / 1_000_000);
            assertThat(r.statusCode()).isEqualTo(expected);
        }
        return millis;
    }

    static String summary(List<Long> millis) {
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return String.format("%d probes: median %d ms, max %d ms", sorted.size(), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
    }

    @Test
    void probesAnswerWhileFiftySlowClientsHoldConnectionsOpen() throws Exception {
        try (HealthServer server = new HealthServer(new InetSocketAddress("127.0.0.1", 0), () -> true, () -> false);
             SlowClients slow = new SlowClients(server.port(), SLOW_CLIENTS,
                     "GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII))) {
            Thread.sleep(500); // every slow request has reached the server
            HttpClient http = HttpClient.newBuilder().connectTimeout(CEILING).build();
            List<Long> millis = new ArrayList<>();
            millis.addAll(probe(http, URI.create("http://127.0.0.1:" + server.port() + "/healthz"), 20, 200));
            millis.addAll(probe(http, URI.create("http://127.0.0.1:" + server.port() + "/readyz"), 20, 503));
            System.out.println("HealthServerTest: " + SLOW_CLIENTS + " slow clients held open: " + summary(millis));
        }
    }
}
