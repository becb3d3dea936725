package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.util.Map;

/**
 * Workloads whose pods run on the {@link Kubelet}'s node: label {@code app: NAME}, one container
 * {@code app} requesting 100m CPU and 64Mi, {@code nodeName} set (there is no scheduler), no grace
 * period. And {@code Widget} (example.com/v1), a custom resource with a scale subresource whose
 * selector is at {@code .status.selector}.
 */
public final class Workloads {

    private static final String CPU_REQUEST = "100m";
    public static final ResourceDefinitionContext WIDGETS = new ResourceDefinitionContext.Builder()
            .withGroup("example.com").withVersion("v1").withKind("Widget").withPlural("widgets").withNamespaced(true).build();

    private Workloads() {
    }

    public static PodTemplateSpec podTemplate(String app) {
        return new PodTemplateSpecBuilder().withNewMetadata().withLabels(Map.of("app", app)).endMetadata()
                .withNewSpec().withNodeName(Kubelet.NODE).withTerminationGracePeriodSeconds(0L).withAutomountServiceAccountToken(false)
                .addNewContainer().withName("app").withImage("registry.k8s.io/pause:3.9")
                .withNewResources().withRequests(Map.of("cpu", new Quantity(CPU_REQUEST), "memory", new Quantity("64Mi"))).endResources()
                .endContainer().endSpec().build();
    }

    public static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withTemplate(podTemplate(name)).endSpec().build();
    }

    public static StatefulSet statefulSet(String name, int replicas) {
        return new StatefulSetBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withReplicas(replicas).withServiceName(name).withPodManagementPolicy("Parallel")
                .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withTemplate(podTemplate(name)).endSpec().build();
    }

    public static ReplicaSet replicaSet(String name, int replicas) {
        return new ReplicaSetBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withTemplate(podTemplate(name)).endSpec().build();
    }

    /** A Widget; nothing controls it: its status (replicas, selector) is the test's to write. */
    public static GenericKubernetesResource widget(String name, int replicas) {
        return new GenericKubernetesResourceBuilder().withApiVersion("example.com/v1").withKind("Widget")
                .withNewMetadata().withName(name).endMetadata()
                .addToAdditionalProperties("spec", Map.of("replicas", replicas)).build();
    }

    /** Installs the Widget CRD once per control plane and waits until it is served. */
    public static synchronized void installWidgetCrd(KubernetesClient admin) {
        String name = "widgets.example.com";
        if (admin.apiextensions().v1().customResourceDefinitions().withName(name).get() == null) {
            CustomResourceDefinition crd = new CustomResourceDefinitionBuilder().withNewMetadata().withName(name).endMetadata()
                    .withNewSpec().withGroup("example.com").withScope("Namespaced")
                    .withNewNames().withKind("Widget").withPlural("widgets").withSingular("widget").withListKind("WidgetList").endNames()
                    .addNewVersion().withName("v1").withServed(true).withStorage(true)
                    .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
                    .withNewSubresources().withNewStatus().endStatus()
                    .withNewScale().withSpecReplicasPath(".spec.replicas").withStatusReplicasPath(".status.replicas")
                    .withLabelSelectorPath(".status.selector").endScale().endSubresources()
                    .endVersion().endSpec().build();
            admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        }
        Crds.awaitEstablished(admin, name);
    }
}
