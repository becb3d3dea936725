package io.hpacontroller.core.port;

import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;

import java.util.List;

/** Port: the pods of a namespace that a selector matches (from a cache in the live controller). */
public interface PodSource {

    List<PodInfo> list(String namespace, Selector selector);
}
