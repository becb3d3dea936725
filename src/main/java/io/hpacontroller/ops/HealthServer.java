package io.hpacontroller.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * {@code /healthz} (the process is alive and its workers are not stuck) and {@code /readyz} (the
 * informers have synced) for the kubelet's probes.
 */
public final class HealthServer implements AutoCloseable {

    private final HttpServer server;

    public HealthServer(InetSocketAddress address, BooleanSupplier alive, BooleanSupplier ready) throws IOException {
        server = HttpServer.create(address, 16);
        server.createContext("/healthz", ex -> answer(ex, alive.getAsBoolean()));
        server.createContext("/livez", ex -> answer(ex, alive.getAsBoolean()));
        server.createContext("/readyz", ex -> answer(ex, ready.getAsBoolean()));
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "health-server");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange ex, boolean ok) throws IOException {
        byte[] body = (ok ? "ok" : "not ready").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        ex.sendResponseHeaders(ok ? 200 : 503, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
