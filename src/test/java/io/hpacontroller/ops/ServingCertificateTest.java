package io.hpacontroller.ops;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ServingCertificate}: the PEM encodings cert-manager and OpenSSL write, and the self-signed certificate. */
class ServingCertificateTest {

    private static final Path TLS = Path.of("src/test/resources/tls");

    @Test
    void readsAnRsaKeyInPkcs1OrPkcs8AndAnEcKeyInSec1WithItsParameters() throws Exception {
        for (String[] pair : List.of(new String[] {"rsa.crt", "rsa-pkcs1.key"}, new String[] {"rsa.crt", "rsa-pkcs8.key"},
                new String[] {"ec.crt", "ec-sec1.key"})) {
            ServingCertificate c = ServingCertificate.read(TLS.resolve(pair[0]), TLS.resolve(pair[1]));
            assertThat(c.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=hpa-controller-test");
            assertThat(c.context().getProtocol()).isEqualTo("TLS");
        }
    }

    @Test
    void aKeyThatIsNotTheCertificatesOrAFileThatIsNotPemIsAProblemNamingTheFlagAndTheFile() {
        assertThatThrownBy(() -> ServingCertificate.read(TLS.resolve("rsa.crt"), TLS.resolve("ec-sec1.key")))
                .isInstanceOf(ServingCertificate.Problem.class)
                .hasMessage("--tls-private-key-file: " + TLS.resolve("ec-sec1.key") + " is not the key of the certificate in " + TLS.resolve("rsa.crt"));
        assertThatThrownBy(() -> ServingCertificate.read(TLS.resolve("rsa-pkcs1.key"), TLS.resolve("rsa-pkcs1.key")))
                .isInstanceOf(ServingCertificate.Problem.class).hasMessageStartingWith("--tls-cert-file: " + TLS.resolve("rsa-pkcs1.key") + " holds no PEM certificate");
        assertThatThrownBy(() -> ServingCertificate.read(TLS.resolve("rsa.crt"), TLS.resolve("rsa.crt")))
                .isInstanceOf(ServingCertificate.Problem.class)
                .hasMessage("--tls-private-key-file: " + TLS.resolve("rsa.crt") + ": no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
        assertThatThrownBy(() -> ServingCertificate.read(TLS.resolve("nope.crt"), TLS.resolve("rsa-pkcs1.key")))
                .isInstanceOf(ServingCertificate.Problem.class).hasMessageStartingWith("--tls-cert-file: cannot read " + TLS.resolve("nope.crt"));
    }

    @Test
    void theSelfSignedCertificateIsAServerCertificateForTheHostLocalhostAndLoopbackValidForAYear() throws Exception {
        Instant now = Instant.parse("2026-11-26T10:00:00Z");
        X509Certificate c = ServingCertificate.selfSigned(now, "hpa-controller-7d9c6-x2bqf").certificate();
        c.verify(c.getPublicKey());
        c.checkValidity(Date.from(now));
        c.checkValidity(Date.from(now.plus(Duration.ofDays(364))));
        assertThat(c.getNotAfter().toInstant()).isEqualTo(now.plus(ServingCertificate.SELF_SIGNED_VALIDITY));
        assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=hpa-controller-7d9c6-x2bqf@" + now.getEpochSecond());
        assertThat(c.getSigAlgName()).isEqualTo("SHA256withECDSA");
        assertThat(c.getVersion()).isEqualTo(3);
        assertThat(c.getBasicConstraints()).as("not a CA").isEqualTo(-1);
        assertThat(c.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(c.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(c.getSubjectAlternativeNames()).containsExactlyInAnyOrder(List.of(2, "hpa-controller-7d9c6-x2bqf"), List.of(2, "localhost"),
                List.of(7, "127.0.0.1"));
    }
}
