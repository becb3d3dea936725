package io.hpacontroller.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.reconcile.DecisionTrace;
import io.hpacontroller.live.ControllerOptions;
import io.hpacontroller.live.HpaApi;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /decisions/NAMESPACE/NAME} on the metrics port ({@code /decisions/autoscaling.hpa-controller.io/NAMESPACE/NAME}
 * for a mirror HPA, its key): the HPA's last decision traces, the flags and
 * the HPA's remembered history, as {@link HpaDecisions} JSON. 404 (with the same body, empty) when this
 * instance has neither synced nor remembered the HPA; 400 for another path shape; 405 for another method.
 * Served as the Prometheus HTTP server's default handler, so every path but {@code /metrics} comes here.
 */
final class DecisionsEndpoint implements HttpHandler {

    static final String PREFIX = "/decisions/";

    private final RecentDecisions recent;
    private final HistoryStore histories;
    private final HpaDecisions.Flags flags;
    private final BooleanSupplier leading;

    DecisionsEndpoint(RecentDecisions recent, HistoryStore histories, ControllerOptions options, BooleanSupplier leading) {
        this.recent = recent;
        this.histories = histories;
        this.flags = HpaDecisions.Flags.of(options.decisions(), options.syncPeriod());
        this.leading = leading;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            if (!path.startsWith(PREFIX)) {
                answer(ex, 404, "text/plain", "not found: the metrics are at /metrics, the decisions of an HPA at " + PREFIX + "NAMESPACE/NAME\n");
                return;
            }
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                answer(ex, 405, "text/plain", "only GET\n");
                return;
            }
            String[] parts = path.substring(PREFIX.length()).split("/", -1);
            boolean mirror = parts.length == 3 && parts[0].equals(HpaApi.MIRROR.group());
            if (!(parts.length == 2 || mirror) || java.util.Arrays.stream(parts).anyMatch(String::isEmpty)) {
                answer(ex, 400, "text/plain", "expected " + PREFIX + "NAMESPACE/NAME, or " + PREFIX + HpaApi.MIRROR.group()
                        + "/NAMESPACE/NAME for a mirror HPA, got " + path + "\n");
                return;
            }
            String key = String.join("/", parts);
            List<DecisionTrace> decisions = recent.of(key);
            HpaHistory.Snapshot history = histories.snapshot(key);
            HpaDecisions body = new HpaDecisions(key, leading.getAsBoolean(), flags, history, decisions);
            answer(ex, decisions.isEmpty() && !history.seen() ? 404 : 200, "application/json", DecisionsJson.write(body));
        }
    }

    private static void answer(HttpExchange ex, int status, String type, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        boolean head = "HEAD".equals(ex.getRequestMethod());
        ex.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
