package io.hpacontroller.api;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;

/**
 * A request that failed below HTTP, said the way client-go says it where it has words for it:
 * {@code dial tcp 10.0.0.1:6443: connect: connection refused}, {@code dial tcp: lookup api.example: no
 * such host}. The JDK's HTTP client reports both as a {@code ConnectException} without a message; any
 * other failure (TLS, a reset) is the innermost message of the chain.
 */
public final class TransportFailure {

    private TransportFailure() {
    }

    public static String describe(Throwable failure, URI target) {
        String host = target.getHost() == null ? "" : target.getHost();
        int port = target.getPort() >= 0 ? target.getPort() : "http".equals(target.getScheme()) ? 80 : 443;
        boolean connecting = false;
        String message = null;
        Throwable innermost = failure;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return "dial tcp: lookup " + host + ": no such host";
            }
            connecting |= t instanceof ConnectException;
            if (connecting && (t instanceof ClosedChannelException
                    || t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains("connection refused"))) {
                return "dial tcp " + host + ":" + port + ": connect: connection refused";
            }
            if (t != failure && t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage().lines().findFirst().orElse("");
            }
            innermost = t;
        }
        // the client's wrapper says only "An error has occurred": below it, the innermost message, else the innermost kind
        return message != null ? message : innermost.getClass().getSimpleName();
    }
}
