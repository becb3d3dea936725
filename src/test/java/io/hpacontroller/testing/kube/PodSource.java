package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.hpacontroller.core.labels.Selector;

import java.util.List;

/** Which pods run in a namespace, for the metrics a fake adapter reports per pod. */
interface PodSource {

    /** The running pods of the namespace that the selector selects. */
    List<Pod> runningPods(String namespace, Selector selector);
}
