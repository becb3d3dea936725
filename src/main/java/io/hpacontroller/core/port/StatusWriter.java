package io.hpacontroller.core.port;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.core.trace.DecisionTrace;

/** Port: the HPA's status subresource. */
public interface StatusWriter {

    /**
     * Replaces the status of the HPA.
     *
     * @param hpa    the HPA as read (metadata identifies it)
     * @param status the new status
     */
    void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) throws ApiException;

    /**
     * Replaces the status of the HPA, written by a sync that decided {@code decided}. A writer whose API carries
     * the decision in the status (the mirror HPA's {@code status.lastDecision}) overrides this; the others write
     * the status alone.
     *
     * @param hpa     the HPA as read (metadata identifies it)
     * @param status  the new status
     * @param decided what the sync writing it decided
     */
    default void write(HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status, DecisionTrace decided) throws ApiException {
        write(hpa, status);
    }

    /**
     * Another writer of this HPA's status, as the HPA this sync read shows it; {@link OtherStatusWriter#UNKNOWN} from a
     * writer that keeps no track (the default). Never throws.
     *
     * @param hpa the HPA as the sync read it
     */
    default OtherStatusWriter otherWriter(HorizontalPodAutoscaler hpa) {
        return OtherStatusWriter.UNKNOWN;
    }

    /**
     * The sync found the HPA's status as it would write it, and wrote nothing: for a writer that keeps track of what
     * the status should be (the default ignores it).
     *
     * @param hpa the HPA as the sync read it
     */
    default void unchanged(HorizontalPodAutoscaler hpa) {
    }
}
