package io.hpacontroller.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.pods.PodFields;
import io.hpacontroller.scale.WorkloadFields;
import java.util.List;

/**
 * The JSON mapping of the kinds the controller watches, each to the class its informer reads it into
 * ({@link PodFields} and {@link WorkloadFields} for pods and workloads). fabric8's default mapping
 * first loads and instantiates every resource class of every model jar (about 600 classes the
 * controller never uses, several MiB of class metadata and a share of the start-up CPU) to resolve the
 * kind of a watch event's object; this one knows only the kinds watched here. Requests with a declared type (a GET into
 * {@code Scale.class}, a list) never need it; a kind missing here would still be read, as a generic
 * resource converted to the watched type.
 */
public final class ModelKinds {

    private ModelKinds() {
    }

    public static KubernetesSerialization serialization() {
        KubernetesSerialization serialization = new KubernetesSerialization(new ObjectMapper(), false);
        for (Class<? extends KubernetesResource> kind : List.of(HorizontalPodAutoscaler.class, MirrorHpa.class,
                PodFields.class, WorkloadFields.Deployment.class, WorkloadFields.StatefulSet.class, WorkloadFields.ReplicaSet.class,
                WorkloadFields.ReplicationController.class, Lease.class, Event.class,
                // a watch's ERROR event (410 Gone after an API server restart): read as a Status, the informer relists
                Status.class)) {
            serialization.registerKubernetesResource(kind);
        }
        return serialization;
    }
}
