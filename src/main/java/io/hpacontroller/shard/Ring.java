package io.hpacontroller.shard;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.StableHash;

import java.util.Collection;
import java.util.Map;

/**
 * The ring: rendezvous (highest random weight) hashing of an HPA's key over a set of members. Each member scores the
 * key with a hash of (member, key); the highest score owns it. The same members give the same owner on every replica
 * (the hash is fixed, {@link StableHash}, so that mixed versions agree), and a member joining or leaving moves only
 * the keys it wins or held: about 1/N of them.
 */
public final class Ring {

    private Ring() {
    }

    /** The member that owns the key, null when there is no member. Ties (a 2^-64 chance) go to the least name. */
    public static String owner(HpaKey key, Collection<String> members) {
        return owner(key.stableHash(), members);
    }

    /** {@link #owner(HpaKey, Collection)} of a key by its {@link HpaKey#stableHash}, hashed once for several views. */
    static String owner(long keyHash, Collection<String> members) {
        String best = null;
        long bestScore = 0;
        for (String member : members) {
            long score = StableHash.mix(StableHash.fnv1a(member) ^ keyHash);
            if (best == null || Long.compareUnsigned(score, bestScore) > 0
                    || score == bestScore && member.compareTo(best) < 0) {
                best = member;
                bestScore = score;
            }
        }
        return best;
    }

    /**
     * The member whose own published view gives it the key (the views by member, in name order), null when none does
     * (a handover under way): who syncs it, by the claim rule ({@link ShardClaims}), when that member also read the others'.
     */
    public static String claimant(HpaKey key, Map<String, ? extends Collection<String>> views) {
        return claimant(key.stableHash(), views);
    }

    /** {@link #claimant(HpaKey, Map)} of a key by its {@link HpaKey#stableHash}. */
    static String claimant(long keyHash, Map<String, ? extends Collection<String>> views) {
        for (Map.Entry<String, ? extends Collection<String>> member : views.entrySet()) {
            if (member.getKey().equals(owner(keyHash, member.getValue()))) {
                return member.getKey();
            }
        }
        return null;
    }
}
