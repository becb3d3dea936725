package io.hpacontroller.core.calc;

/**
 * The pods behind a per-pod metric, by {@link PodGroups group}.
 *
 * @param ready               running and ready, with a sample: the pods the ratio is computed over
 * @param unready             pending, or (cpu only) not yet initialized: counted at zero on a scale-up
 * @param missing             no sample: counted at the target (or 100 %) on a scale-down, at zero on a scale-up
 * @param ignored             being deleted, or failed
 * @param samplesWithoutPod   samples for pods the pod list does not have (counted in plain averages, as upstream)
 */
public record PodCounts(int ready, int unready, int missing, int ignored, int samplesWithoutPod) {
}
