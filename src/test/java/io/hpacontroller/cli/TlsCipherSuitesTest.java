package io.hpacontroller.cli;

import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

class TlsCipherSuitesTest {

    @Test
    void chaCha20ComesFirstUnlessTheJvmWasGivenSuites() {
        Properties none = new Properties();
        TlsCipherSuites.preferChaCha20(none);
        assertThat(none.getProperty(TlsCipherSuites.PROPERTY)).startsWith("TLS_CHACHA20_POLY1305_SHA256,TLS_AES_128_GCM_SHA256,");

        Properties given = new Properties();
        given.setProperty(TlsCipherSuites.PROPERTY, "TLS_AES_256_GCM_SHA384");
        TlsCipherSuites.preferChaCha20(given);
        assertThat(given.getProperty(TlsCipherSuites.PROPERTY)).isEqualTo("TLS_AES_256_GCM_SHA384");
    }

    @Test
    void everySuiteIsOneThisJdkSupportsAndEnablesByDefault() throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, null, null);
        assertThat(List.of(tls.getDefaultSSLParameters().getCipherSuites())).containsAll(TlsCipherSuites.PREFERRED);
    }
}
