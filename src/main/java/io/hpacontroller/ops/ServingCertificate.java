package io.hpacontroller.ops;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The certificate and key the metrics port serves with: read from PEM files ({@code --tls-cert-file},
 * {@code --tls-private-key-file}: a chain, and a PKCS #8, PKCS #1 RSA or SEC 1 EC key, as cert-manager writes them),
 * or, when none is given, a self-signed one made at start (as kube-controller-manager and controller-runtime do: an
 * ECDSA P-256 key, valid for a year, for the host name, {@code localhost} and 127.0.0.1; clients skip its
 * verification or pin it). TLS 1.2 and 1.3, AEAD suites with forward secrecy only.
 */
public final class ServingCertificate {

    /** How long a self-signed certificate is valid, from an hour before it is made. */
    static final Duration SELF_SIGNED_VALIDITY = Duration.ofDays(365);
    private static final char[] NO_PASSWORD = new char[0];
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /** What the server offers; the JDK skips the suites the key cannot use (ECDSA or RSA). */
    private static final String[] CIPHER_SUITES = {
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"};

    private final PrivateKey key;
    private final List<X509Certificate> chain;

    private ServingCertificate(PrivateKey key, List<X509Certificate> chain) {
        this.key = key;
        this.chain = List.copyOf(chain);
    }

    /** A certificate or key file that cannot be used: the message names the file and the problem. */
    public static final class Problem extends Exception {
        Problem(String message) {
            super(message);
        }
    }

    public X509Certificate certificate() {
        return chain.get(0);
    }

    /** The server's TLS context. */
    public SSLContext context() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        store.setKeyEntry("serving", key, NO_PASSWORD, chain.toArray(new Certificate[0]));
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, NO_PASSWORD);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, new SecureRandom());
        return context;
    }

    /** The protocols and suites of {@link ServingCertificate}, on a server socket's defaults. */
    static SSLParameters serverParameters(SSLParameters defaults) {
        List<String> supported = Arrays.asList(defaults.getCipherSuites());
        defaults.setProtocols(PROTOCOLS);
        defaults.setCipherSuites(Arrays.stream(CIPHER_SUITES).filter(supported::contains).toArray(String[]::new));
        defaults.setUseCipherSuitesOrder(true);
        return defaults;
    }

    // ---- from files ----

    /** The chain of {@code certFile} and the key of {@code keyFile}, which must match. */
    public static ServingCertificate read(Path certFile, Path keyFile) throws Problem {
        List<X509Certificate> chain = new ArrayList<>();
        try {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(Files.readAllBytes(certFile)))) {
                chain.add((X509Certificate) c);
            }
        } catch (IOException e) {
            throw new Problem("--tls-cert-file: cannot read " + certFile + ": " + e.getMessage());
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new Problem("--tls-cert-file: " + certFile + " holds no PEM certificate: " + e.getMessage());
        }
        if (chain.isEmpty()) {
            throw new Problem("--tls-cert-file: " + certFile + " holds no PEM certificate");
        }
        PrivateKey key;
        try {
            key = privateKey(Files.readString(keyFile, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new Problem("--tls-private-key-file: cannot read " + keyFile + ": " + e.getMessage());
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new Problem("--tls-private-key-file: " + keyFile + ": " + e.getMessage());
        }
        if (!matches(key, chain.get(0))) {
            throw new Problem("--tls-private-key-file: " + keyFile + " is not the key of the certificate in " + certFile);
        }
        return new ServingCertificate(key, chain);
    }

    private static final Pattern PEM = Pattern.compile("-----BEGIN ([A-Z ]+)-----([^-]+)-----END \\1-----");

    /** The first private key of a PEM text: PRIVATE KEY (PKCS #8), RSA PRIVATE KEY (PKCS #1) or EC PRIVATE KEY (SEC 1). */
    static PrivateKey privateKey(String pem) throws GeneralSecurityException {
        Matcher m = PEM.matcher(pem);
        while (m.find()) {
            byte[] der = Base64.getMimeDecoder().decode(m.group(2));
            switch (m.group(1)) {
                case "PRIVATE KEY" -> {
                    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
                        try {
                            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
                        } catch (GeneralSecurityException e) {
                            // the next algorithm
                        }
                    }
                    throw new GeneralSecurityException("its PRIVATE KEY is not an RSA, EC or Ed25519 key");
                }
                case "RSA PRIVATE KEY" -> {
                    byte[] pkcs8 = Der.sequence(Der.integer(BigInteger.ZERO), Der.sequence(Der.oid(RSA_ENCRYPTION), Der.NULL), Der.octets(der));
                    return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
                }
                case "EC PRIVATE KEY" -> {
                    byte[] curve = Der.ecPrivateKeyCurve(der);
                    byte[] pkcs8 = Der.sequence(Der.integer(BigInteger.ZERO), Der.sequence(Der.oid(EC_PUBLIC_KEY), curve), Der.octets(der));
                    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
                }
                default -> {
                    // e.g. EC PARAMETERS before the key: skipped
                }
            }
        }
        throw new IllegalArgumentException("no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
    }

    private static boolean matches(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm();
        };
        try {
            byte[] probe = "hpa-controller".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(certificate.getPublicKey());
            verify.update(probe);
            return verify.verify(sign.sign());
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    // ---- self-signed ----

    private static final String EC_PUBLIC_KEY = "1.2.840.10045.2.1";
    private static final String RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

    /** A new ECDSA P-256 key and a certificate for it, signed by itself, for the host name, localhost and 127.0.0.1. */
    public static ServingCertificate selfSigned(Instant now) throws GeneralSecurityException {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        return selfSigned(now, host);
    }

    static ServingCertificate selfSigned(Instant now, String host) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair pair = generator.generateKeyPair();
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        byte[] name = Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8(host + "@" + now.getEpochSecond()))));
        List<byte[]> altNames = new ArrayList<>();
        for (String dns : host.equals("localhost") ? List.of("localhost") : List.of(host, "localhost")) {
            altNames.add(Der.tagged(0x82, dns.getBytes(StandardCharsets.US_ASCII)));
        }
        altNames.add(Der.tagged(0x87, new byte[] {127, 0, 0, 1}));
        byte[] extensions = Der.sequence(
                extension(KEY_USAGE, true, Der.tagged(0x03, new byte[] {7, (byte) 0x80})), // digitalSignature
                extension(EXTENDED_KEY_USAGE, false, Der.sequence(Der.oid(SERVER_AUTH))),
                extension(BASIC_CONSTRAINTS, true, Der.sequence()),
                extension(SUBJECT_ALT_NAME, false, Der.sequence(altNames.toArray(new byte[0][]))));
        Instant from = now.minus(Duration.ofHours(1));
        byte[] tbs = Der.sequence(
                Der.tagged(0xa0, Der.integer(BigInteger.TWO)), // v3
                Der.integer(new BigInteger(63, new SecureRandom()).add(BigInteger.ONE)),
                algorithm,
                name,
                Der.sequence(Der.utcTime(from), Der.utcTime(now.plus(SELF_SIGNED_VALIDITY))),
                name,
                pair.getPublic().getEncoded(),
                Der.tagged(0xa3, extensions));
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(pair.getPrivate());
        signer.update(tbs);
        byte[] signature = signer.sign();
        byte[] bits = new byte[signature.length + 1]; // no unused bits
        System.arraycopy(signature, 0, bits, 1, signature.length);
        byte[] der = Der.sequence(tbs, algorithm, Der.tagged(0x03, bits));
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        certificate.verify(pair.getPublic());
        return new ServingCertificate(pair.getPrivate(), List.of(certificate));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.tagged(0x01, new byte[] {(byte) 0xff}), Der.octets(value))
                : Der.sequence(Der.oid(oid), Der.octets(value));
    }

    /** The few DER encodings a certificate and a key need. */
    static final class Der {
        static final byte[] NULL = {0x05, 0x00};
        private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

        private Der() {
        }

        static byte[] tagged(int tag, byte[] content) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
            out.write(tag);
            int n = content.length;
            if (n < 0x80) {
                out.write(n);
            } else {
                byte[] length = BigInteger.valueOf(n).toByteArray();
                int skip = length[0] == 0 ? 1 : 0;
                out.write(0x80 | (length.length - skip));
                out.write(length, skip, length.length - skip);
            }
            out.writeBytes(content);
            return out.toByteArray();
        }

        static byte[] sequence(byte[]... parts) {
            return tagged(0x30, concat(parts));
        }

        static byte[] set(byte[]... parts) {
            return tagged(0x31, concat(parts));
        }

        static byte[] integer(BigInteger value) {
            return tagged(0x02, value.toByteArray());
        }

        static byte[] octets(byte[] value) {
            return tagged(0x04, value);
        }

        static byte[] utf8(String text) {
            return tagged(0x0c, text.getBytes(StandardCharsets.UTF_8));
        }

        static byte[] utcTime(Instant time) {
            return tagged(0x17, UTC_TIME.format(time).getBytes(StandardCharsets.US_ASCII));
        }

        static byte[] oid(String dotted) {
            String[] arcs = dotted.split("\\.");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
            for (int i = 2; i < arcs.length; i++) {
                long arc = Long.parseLong(arcs[i]);
                int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(arc) + 6) / 7);
                for (int g = groups - 1; g >= 0; g--) {
                    out.write((int) ((arc >>> (7 * g)) & 0x7f) | (g > 0 ? 0x80 : 0));
                }
            }
            return tagged(0x06, out.toByteArray());
        }

        private static byte[] concat(byte[]... parts) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] p : parts) {
                out.writeBytes(p);
            }
            return out.toByteArray();
        }

        /** The curve (its OID, encoded) of a SEC 1 ECPrivateKey: SEQUENCE { version, privateKey, [0] parameters, ... }. */
        static byte[] ecPrivateKeyCurve(byte[] der) throws GeneralSecurityException {
            int[] at = {0};
            int[] sequence = element(der, at, 0x30);
            at[0] = sequence[0];
            while (at[0] < sequence[1]) {
                int tag = der[at[0]] & 0xff;
                int[] content = element(der, at, tag);
                if (tag == 0xa0) {
                    return Arrays.copyOfRange(der, content[0], content[1]);
                }
                at[0] = content[1];
            }
            throw new GeneralSecurityException("its EC PRIVATE KEY names no curve");
        }

        /** The start and end of the content of the element at {@code at[0]}, which must have tag {@code tag}. */
        private static int[] element(byte[] der, int[] at, int tag) throws GeneralSecurityException {
            int i = at[0];
            if (i + 2 > der.length || (der[i] & 0xff) != tag) {
                throw new GeneralSecurityException("malformed DER");
            }
            int length = der[i + 1] & 0xff;
            int start = i + 2;
            if (length >= 0x80) {
                int bytes = length & 0x7f;
                if (bytes > 3 || start + bytes > der.length) {
                    throw new GeneralSecurityException("malformed DER");
                }
                length = 0;
                for (int b = 0; b < bytes; b++) {
                    length = (length << 8) | (der[start + b] & 0xff);
                }
                start += bytes;
            }
            if (start + length > der.length) {
                throw new GeneralSecurityException("malformed DER");
            }
            return new int[] {start, start + length};
        }
    }
}
