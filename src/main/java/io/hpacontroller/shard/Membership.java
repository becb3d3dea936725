package io.hpacontroller.shard;

import io.hpacontroller.controller.Ticker;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The live members, as client-go judges a Lease: a member is live until one lease duration after this replica last saw
 * its Lease change, on this replica's monotonic clock (so clocks that disagree do not matter). A Lease seen for the
 * first time counts from then: a replica that starts next to a stale Lease waits one lease duration before it counts
 * that member gone. A Lease that is deleted is gone at once (its holder deletes it only once it stopped syncing).
 */
final class Membership {

    private record Seen(MemberLease lease, long at) {
    }

    private final Ticker ticker;
    private final Map<String, Seen> seen = new HashMap<>();

    Membership(Ticker ticker) {
        this.ticker = ticker;
    }

    /**
     * Takes in a fresh list of the members' Leases (read when {@code readAt}, ticker time, was taken: a renewal made
     * while the list was on its way counts from when its answer came, never earlier) and returns the live ones by
     * identity.
     */
    SortedMap<String, MemberLease> observe(Collection<MemberLease> leases, long readAt) {
        Map<String, Seen> next = new HashMap<>();
        for (MemberLease lease : leases) {
            Seen before = seen.get(lease.identity());
            next.put(lease.identity(), before != null && before.lease().sameAs(lease) ? before : new Seen(lease, readAt));
        }
        seen.clear();
        seen.putAll(next);
        return live();
    }

    /** Every member's Lease of the latest list, live or not. */
    List<MemberLease> seen() {
        return seen.values().stream().map(Seen::lease).toList();
    }

    /** The members whose Lease changed within its lease duration before now. */
    SortedMap<String, MemberLease> live() {
        long now = ticker.nanos();
        SortedMap<String, MemberLease> live = new TreeMap<>();
        for (Seen s : seen.values()) {
            if (now - s.at() < Duration.ofSeconds(s.lease().leaseDurationSeconds()).toNanos()) {
                live.put(s.lease().identity(), s.lease());
            }
        }
        return live;
    }
}
