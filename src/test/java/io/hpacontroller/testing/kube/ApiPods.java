package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.core.labels.Selector;

import java.util.List;

/** The running pods as the API server lists them (on a control plane whose pods real kubelets run). */
final class ApiPods implements PodSource {

    private final KubernetesClient admin;

    ApiPods(KubernetesClient admin) {
        this.admin = admin;
    }

    @Override
    public List<Pod> runningPods(String namespace, Selector selector) {
        return admin.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> "Running".equals(p.getStatus().getPhase()) && p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> selector.matches(p.getMetadata().getLabels() == null ? java.util.Map.of() : p.getMetadata().getLabels()))
                .toList();
    }
}
