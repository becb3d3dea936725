package io.hpacontroller.pods;

import io.hpacontroller.core.model.PodInfo;

/**
 * A pod as the cache keeps it: the calculator's {@link PodInfo} (labels included), the namespace and
 * the resourceVersion the informer compares. Nothing else of the Pod is retained.
 */
record CachedPod(String namespace, String resourceVersion, PodInfo info) {
}
