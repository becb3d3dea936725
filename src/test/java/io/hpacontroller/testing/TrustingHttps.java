package io.hpacontroller.testing;

import io.hpacontroller.explain.ControllerLink;

import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.time.Duration;

/** An HTTPS client that accepts any server certificate (the controller's is self-signed): for tests of what it serves. */
public final class TrustingHttps {

    private TrustingHttps() {
    }

    public static HttpClient client(Duration connectTimeout) {
        try {
            return HttpClient.newBuilder().sslContext(ControllerLink.trustingTls()).connectTimeout(connectTimeout).build();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
