package io.hpacontroller.core;

import java.nio.charset.StandardCharsets;

/**
 * A hash that never changes between releases or JVMs (not {@link String#hashCode}): FNV-1a (64 bit) of the UTF-8 bytes,
 * and SplitMix64's finalizer, which moves every bit of its input into every bit of its output. The spread cadence's
 * phases and the sharding ring both rest on it, so that every replica and every version agree. Our own code: a few
 * lines of arithmetic that a library could change.
 */
public final class StableHash {

    /** FNV-1a's offset basis: the hash of no bytes. */
    public static final long FNV_OFFSET = 0xcbf29ce484222325L;

    private StableHash() {
    }

    /** FNV-1a's hash of the text, then the finalizer: texts that differ in one character land far apart. */
    public static long of(String text) {
        return mix(fnv1a(text));
    }

    /** FNV-1a (64 bit) of the text's UTF-8 bytes. */
    public static long fnv1a(String text) {
        return fnv1a(FNV_OFFSET, text);
    }

    /**
     * FNV-1a continued over the text's UTF-8 bytes from {@code h}: {@code fnv1a(fnv1a(a), b) == fnv1a(a + b)}. ASCII is
     * hashed char by char, without encoding the text (the sharding ring hashes keys and member names on every claim check).
     */
    public static long fnv1a(long h, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80) { // the rest as UTF-8; the text before is ASCII, so no pair of surrogates is split
                for (byte b : text.substring(i).getBytes(StandardCharsets.UTF_8)) {
                    h = step(h, b & 0xff);
                }
                return h;
            }
            h = step(h, c);
        }
        return h;
    }

    private static long step(long h, int b) {
        return (h ^ b) * 0x100000001b3L;
    }

    /** SplitMix64's finalizer. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
