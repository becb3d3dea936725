package io.hpacontroller.ops;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

/**
 * {@code /healthz} and {@code /livez} (the process is alive and its workers are not stuck) and {@code /readyz} (the
 * informers have synced) for the kubelet's probes: plain HTTP on a port of their own, no authentication (as
 * kube-controller-manager serves them), on an {@link EndpointServer}, so that a client holding connections open
 * never delays a probe.
 */
public final class HealthServer implements AutoCloseable {

    private final EndpointServer server;

    public HealthServer(InetSocketAddress address, BooleanSupplier alive, BooleanSupplier ready) throws IOException {
        server = EndpointServer.start("health", address, null, request -> {
            BooleanSupplier check = switch (request.path()) {
                case "/healthz", "/livez" -> alive;
                case "/readyz" -> ready;
                default -> null;
            };
            if (check == null) {
                return EndpointServer.Response.text(404, "not found: /healthz, /livez, /readyz\n");
            }
            if (!request.isGetOrHead()) {
                return EndpointServer.Response.onlyGet();
            }
            boolean ok = check.getAsBoolean();
            return EndpointServer.Response.text(ok ? 200 : 503, ok ? "ok" : "not ready");
        }, EndpointServer.Limits.DEFAULT);
    }

    public int port() {
        return server.port();
    }

    boolean isClosed() {
        return server.isClosed();
    }

    @Override
    public void close() {
        server.close();
    }
}
