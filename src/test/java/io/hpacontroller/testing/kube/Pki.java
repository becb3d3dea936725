package io.hpacontroller.testing.kube;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fresh certificates for one control plane (BouncyCastle, valid for a day): a cluster CA, a front-proxy
 * CA for the aggregation layer, serving and client certificates, the service-account signing key. PEM
 * out, as kube-apiserver, kubectl, Vert.x and fabric8 read them. Keys are ECDSA P-256 (an RSA 2048 key
 * costs about 0.7 s on these machines), except where fabric8 reads a client key: RSA.
 */
final class Pki {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A private key and its certificate. */
    record Issued(KeyPair keys, X509Certificate cert) {
        String certPem() {
            return pem("CERTIFICATE", encoded(cert));
        }

        String keyPem() {
            return pem("PRIVATE KEY", keys.getPrivate().getEncoded());
        }

        /** Writes NAME.crt and NAME.key into the directory. */
        Issued writeTo(Path dir, String name) {
            write(dir.resolve(name + ".crt"), certPem());
            write(dir.resolve(name + ".key"), keyPem());
            return this;
        }
    }

    private Pki() {
    }

    static KeyPair rsa() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048, RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static KeyPair ec() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static Issued ca(String commonName) {
        KeyPair keys = ec();
        X500Name name = name(commonName, List.of());
        try {
            X509v3CertificateBuilder b = builder(name, name, keys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
            return new Issued(keys, sign(b, keys));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A serving certificate for these DNS names and IP addresses. */
    static Issued server(Issued ca, String commonName, List<String> dnsNames, List<String> ips) {
        List<GeneralName> alt = new ArrayList<>();
        dnsNames.forEach(d -> alt.add(new GeneralName(GeneralName.dNSName, d)));
        ips.forEach(ip -> alt.add(new GeneralName(GeneralName.iPAddress, ip)));
        return leaf(ca, ec(), name(commonName, List.of()), KeyPurposeId.id_kp_serverAuth, new GeneralNames(alt.toArray(GeneralName[]::new)));
    }

    /** A client certificate: the API server reads the user from CN and the groups from O. */
    static Issued client(Issued ca, String user, List<String> groups, KeyPair keys) {
        return leaf(ca, keys, name(user, groups), KeyPurposeId.id_kp_clientAuth, null);
    }

    private static Issued leaf(Issued ca, KeyPair keys, X500Name subject, KeyPurposeId purpose, GeneralNames alt) {
        try {
            X509v3CertificateBuilder b = builder(name(ca.cert()), subject, keys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            if (alt != null) {
                b.addExtension(Extension.subjectAlternativeName, false, alt);
            }
            return new Issued(keys, sign(b, ca.keys()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static X500Name name(String commonName, List<String> organizations) {
        X500NameBuilder b = new X500NameBuilder(BCStyle.INSTANCE);
        organizations.forEach(o -> b.addRDN(BCStyle.O, o));
        b.addRDN(BCStyle.CN, commonName);
        return b.build();
    }

    private static X500Name name(X509Certificate cert) {
        return X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, PublicKey key) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, key);
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer) {
        try {
            ContentSigner s = new JcaContentSignerBuilder(signer.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA").build(signer.getPrivate());
            return new JcaX509CertificateConverter().getCertificate(b.build(s));
        } catch (Exception e) {
            throw new IllegalStateException("cannot sign a certificate", e);
        }
    }

    private static byte[] encoded(X509Certificate cert) {
        try {
            return cert.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
