package io.hpacontroller.core;

import java.nio.charset.StandardCharsets;

/**
 * A hash that never changes between releases or JVMs (not {@link String#hashCode}): FNV-1a (64 bit) of the UTF-8 bytes,
 * and SplitMix64's finalizer, which moves every bit of its input into every bit of its output. The spread cadence's
 * phases and the sharding ring both rest on it, so that every replica and every version agree. Our own code: a few
 * lines of arithmetic that a library could change.
 */
public final class StableHash {

    private StableHash() {
    }

    /** FNV-1a's hash of the text, then the finalizer: texts that differ in one character land far apart. */
    public static long of(String text) {
        return mix(fnv1a(text));
    }

    /** FNV-1a (64 bit) of the text's UTF-8 bytes. */
    public static long fnv1a(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finalizer. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
