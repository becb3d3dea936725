package io.hpacontroller.api;

import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;

import static org.assertj.core.api.Assertions.assertThat;

/** Failures below HTTP in client-go's words, from the exception chains the JDK's HTTP client produces. */
class TransportFailureTest {

    private static final URI API = URI.create("https://10.0.0.1:6443/api/v1/pods");

    private static Throwable wrapped(Throwable root) {
        ConnectException connect = new ConnectException();
        connect.initCause(root);
        return new KubernetesClientException("An error has occurred.", new IOException(null, connect));
    }

    @Test
    void aRefusedConnectionReadsAsGoDialError() {
        assertThat(TransportFailure.describe(wrapped(new ClosedChannelException()), API))
                .isEqualTo("dial tcp 10.0.0.1:6443: connect: connection refused");
        assertThat(TransportFailure.describe(new ConnectException("Connection refused"), URI.create("http://localhost/x")))
                .isEqualTo("dial tcp localhost:80: connect: connection refused");
    }

    @Test
    void anUnknownHostReadsAsGoLookupError() {
        assertThat(TransportFailure.describe(wrapped(new UnresolvedAddressException()), URI.create("https://api.invalid:6443")))
                .isEqualTo("dial tcp: lookup api.invalid: no such host");
    }

    @Test
    void anyOtherFailureIsItsInnermostMessageOrKind() {
        assertThat(TransportFailure.describe(new KubernetesClientException("An error has occurred.",
                new IOException(new SSLHandshakeException("PKIX path building failed\nmore"))), API)).isEqualTo("PKIX path building failed");
        assertThat(TransportFailure.describe(new KubernetesClientException("An error has occurred.", new IOException()), API))
                .isEqualTo("IOException");
    }
}
