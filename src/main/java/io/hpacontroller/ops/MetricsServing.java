package io.hpacontroller.ops;

import java.util.Objects;

/**
 * How the metrics port ({@code /metrics}, {@code /decisions}) is served: over HTTPS with {@code certificate}, each
 * request authenticated and authorized by the API server ({@link DelegatedAuth}), the default; or, with
 * {@code --metrics-secure=false}, plain HTTP to anyone who reaches the port ({@link #PLAIN}).
 */
public record MetricsServing(boolean secure, ServingCertificate certificate) {

    /** Plain HTTP, no authentication: for a controller on a workstation, a benchmark, a test of something else. */
    public static final MetricsServing PLAIN = new MetricsServing(false, null);

    public MetricsServing {
        if (secure) {
            Objects.requireNonNull(certificate, "HTTPS needs a certificate");
        } else if (certificate != null) {
            throw new IllegalArgumentException("a certificate is only for HTTPS");
        }
    }

    /** HTTPS with delegated authentication and authorization. */
    public static MetricsServing secure(ServingCertificate certificate) {
        return new MetricsServing(true, certificate);
    }
}
