package io.hpacontroller.testing;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;

/** An HTTPS client that accepts any server certificate (the controller's is self-signed): for tests of what it serves. */
public final class TrustingHttps {

    private TrustingHttps() {
    }

    public static HttpClient client(Duration connectTimeout) {
        try {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return HttpClient.newBuilder().sslContext(tls).connectTimeout(connectTimeout).build();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
