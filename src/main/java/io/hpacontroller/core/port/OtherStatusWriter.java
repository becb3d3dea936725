package io.hpacontroller.core.port;

/**
 * What a {@link StatusWriter} knows of another writer of an HPA's status (another HPA controller reconciling the same
 * HPA: the built-in one left on beside a full replacement, a second instance of this controller outside its leader
 * election). The core turns it into the ConflictingController condition and event ({@code Reconciler}, core.reconcile).
 *
 * @param message what another writer did and what to do about it, for the condition and the event; null when none was
 *                seen
 * @param known   whether "none" is known: the writer has watched the status long enough to tell that nobody else wrote
 *                it lately (the condition, if any, can go)
 */
public record OtherStatusWriter(String message, boolean known) {

    /** The writer cannot tell (it has not written this HPA's status yet, or lost track of it). */
    public static final OtherStatusWriter UNKNOWN = new OtherStatusWriter(null, false);

    /** Nobody else has written the status lately. */
    public static final OtherStatusWriter NONE = new OtherStatusWriter(null, true);

    /** Another writer, described by the message. */
    public static OtherStatusWriter seen(String message) {
        return new OtherStatusWriter(message, true);
    }
}
