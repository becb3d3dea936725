package io.hpacontroller.cli;

import java.util.List;
import java.util.Properties;

/**
 * The TLS cipher suites the controller offers the API server, ChaCha20-Poly1305 first. The image's JVM compiles
 * with C1 only ({@code -XX:TieredStopAtLevel=1}, for memory), and C1 has no AES or GHASH intrinsics: AES-GCM then
 * runs as plain Java, and against a real API server it took about 28 % of the controller's CPU (JFR). ChaCha20-Poly1305
 * needs no special instructions; with it first (kube-apiserver, as Go's TLS stack does, takes the client's
 * preference for ChaCha20 to mean the client has no AES hardware) the controller spent 24.0 CPU-seconds in its
 * first 90 s instead of 30.4–30.5, and 2.51 ms per sync instead of 3.17–3.22 (docs/benchmarks.md, "Memory and start-up").
 * The AES-GCM suites follow, for a server that does not offer ChaCha20; all are AEAD suites with forward secrecy
 * (TLS 1.3, or TLS 1.2 with ECDHE). A {@code -Djdk.tls.client.cipherSuites} given to the JVM is left as it is.
 */
final class TlsCipherSuites {

    static final String PROPERTY = "jdk.tls.client.cipherSuites";
    static final List<String> PREFERRED = List.of(
            "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");

    private TlsCipherSuites() {
    }

    /** Sets the preference unless the JVM was given one; before the first TLS connection (the JDK reads it once). */
    static void preferChaCha20(Properties system) {
        if (system.getProperty(PROPERTY) == null) {
            system.setProperty(PROPERTY, String.join(",", PREFERRED));
        }
    }
}
