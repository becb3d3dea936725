package io.hpacontroller.shard;

import io.hpacontroller.core.HpaKey;

import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * The ring: rendezvous (highest random weight) hashing of an HPA's key over a set of members. Each member scores the
 * key with a hash of (member, key); the highest score owns it. The same members give the same owner on every replica
 * (the hash is fixed: FNV-1a 64 of the UTF-8 bytes, then the SplitMix64 finalizer; not {@link String#hashCode}), and a
 * member joining or leaving moves only the keys it wins or held: about 1/N of them. Our own code: a few lines of
 * arithmetic that must never change between releases (a library's hash could), so that mixed versions agree.
 */
public final class Ring {

    private Ring() {
    }

    /** The member that owns the key, null when there is no member. Ties (a 2^-64 chance) go to the least name. */
    public static String owner(HpaKey key, Collection<String> members) {
        long keyHash = fnv(key.toString());
        String best = null;
        long bestScore = 0;
        for (String member : members) {
            long score = mix(fnv(member) ^ mix(keyHash));
            if (best == null || Long.compareUnsigned(score, bestScore) > 0
                    || score == bestScore && member.compareTo(best) < 0) {
                best = member;
                bestScore = score;
            }
        }
        return best;
    }

    private static long fnv(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finalizer: every bit of the input moves every bit of the output. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
