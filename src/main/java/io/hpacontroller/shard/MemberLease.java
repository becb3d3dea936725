package io.hpacontroller.shard;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What one replica's membership Lease says: who holds it, for how long, when it was last renewed, and the member set
 * (the "view") that replica acts on, published in an annotation as a comma-separated list of identities.
 *
 * @param identity             spec.holderIdentity: the replica
 * @param leaseDurationSeconds how long the others wait after they last saw the Lease change before they count it gone
 * @param renewTime            spec.renewTime (written by its holder; the others judge expiry on their own clock)
 * @param view                 the members whose ring the replica acts on; empty while it acts on none
 * @param resourceVersion      the Lease's, guards the next update; null for a Lease not written yet
 * @param handover             the text of its {@link Handover} annotation, null without one
 */
public record MemberLease(String identity, int leaseDurationSeconds, Instant renewTime, SortedSet<String> view, String resourceVersion,
                          String handover) {

    /** The annotation the view is published in. */
    public static final String VIEW_ANNOTATION = "hpa-controller.io/shard-view";
    /** The label that makes a Lease a member's: its value names the controller (the leader election Lease's name). */
    public static final String MEMBER_LABEL = "hpa-controller.io/shard-of";

    public MemberLease {
        Objects.requireNonNull(identity);
        view = Collections.unmodifiableSortedSet(new TreeSet<>(view));
    }

    public MemberLease(String identity, int leaseDurationSeconds, Instant renewTime, SortedSet<String> view, String resourceVersion) {
        this(identity, leaseDurationSeconds, renewTime, view, resourceVersion, null);
    }

    /** Same content (the resourceVersion aside): its holder did not renew it since. */
    boolean sameAs(MemberLease other) {
        return other != null && identity.equals(other.identity) && leaseDurationSeconds == other.leaseDurationSeconds
                && Objects.equals(renewTime, other.renewTime) && view.equals(other.view) && Objects.equals(handover, other.handover);
    }

    /** The annotation's value for a view. */
    public static String viewText(SortedSet<String> view) {
        return String.join(",", view);
    }

    /** The view an annotation's value names (missing or blank: none). */
    public static SortedSet<String> parseView(String text) {
        SortedSet<String> view = new TreeSet<>();
        if (text != null) {
            Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(view::add);
        }
        return view;
    }

    /**
     * The Lease's name for a replica: {@code <prefix>-shard-<identity>}, the identity lower-cased and every character a
     * Lease name cannot hold turned into '-' (a host name and pid such as "node_4711" becomes "node-4711").
     */
    public static String leaseName(String prefix, String identity) {
        String name = (prefix + "-shard-" + identity).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
        name = name.length() > 253 ? name.substring(0, 253) : name;
        return name.replaceAll("[^a-z0-9]+$", "");
    }
}
