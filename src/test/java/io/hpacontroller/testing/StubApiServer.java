package io.hpacontroller.testing;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A stand-in for the API server whose every answer a test writes ({@code handler}), on a free loopback port, and a
 * fabric8 client to it that does not retry: for what the fabric8 mock server does not do (resourceVersions, 404
 * pages, reviews). {@link #close} stops both.
 */
public final class StubApiServer implements AutoCloseable {

    private final HttpServer server;
    private final KubernetesClient client;

    private StubApiServer(HttpServer server, KubernetesClient client) {
        this.server = server;
        this.client = client;
    }

    public static StubApiServer start(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", handler);
        server.start();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withRequestRetryBackoffLimit(0).build()).build();
        return new StubApiServer(server, client);
    }

    public KubernetesClient client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
        server.stop(0);
    }
}
