package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.MirrorHpa;
import io.hpacontroller.testing.kube.TestNamespace;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Objects and options the live-controller tests share. */
public final class LiveFixtures {

    private LiveFixtures() {
    }

    /** Options for a controller that reconciles the HPAs of one API in the test namespace: 1 s syncs, no scale-down window. */
    public static ControllerOptions reconciling(TestNamespace ns, HpaApi api) {
        return new ControllerOptions(ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO), Duration.ofSeconds(1), 2,
                List.of(ns.name()), Duration.ofSeconds(5), java.util.Set.of(api), false);
    }

    /** The HPAs of this API in the test namespace, as objects of no model class (a manifest of either API). */
    public static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> hpas(TestNamespace ns,
                                                                                                                              HpaApi api) {
        return api == HpaApi.MIRROR
                ? ns.admin().genericKubernetesResources(new ResourceDefinitionContext.Builder().withGroup(api.group()).withVersion(api.version())
                .withKind("HorizontalPodAutoscaler").withPlural(api.plural()).withNamespaced(true).build())
                : ns.admin().genericKubernetesResources(api.apiVersion(), "HorizontalPodAutoscaler");
    }

    /** Creates the HPA of a manifest (YAML) in the test namespace, in the API its apiVersion names. */
    public static void apply(TestNamespace ns, HpaApi api, String manifest) {
        hpas(ns, api).inNamespace(ns.name()).resource(Serialization.unmarshal(manifest, GenericKubernetesResource.class)).create();
    }

    /** An HPA of either API as the core sees it, null when there is none. */
    public static HorizontalPodAutoscaler read(TestNamespace ns, HpaApi api, String name) {
        if (api == HpaApi.MIRROR) {
            MirrorHpa m = ns.admin().resources(MirrorHpa.class).inNamespace(ns.name()).withName(name).get();
            return m == null ? null : m.toCore();
        }
        return ns.admin().autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns.name()).withName(name).get();
    }

    public static Deployment deployment(String ns, String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().withReplicas(replicas)
                .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx")
                .withNewResources().withRequests(Map.of("cpu", new Quantity("100m"))).endResources()
                .endContainer().endSpec().endTemplate()
                .endSpec().build();
    }

    public static MetricSpec cpuUtilization(int percent) {
        return new MetricSpecBuilder().withType("Resource").withNewResource().withName("cpu")
                .withNewTarget().withType("Utilization").withAverageUtilization(percent).endTarget().endResource().build();
    }

    public static MetricSpec externalAverage(String metric, String averageValue) {
        return new MetricSpecBuilder().withType("External").withNewExternal().withNewMetric().withName(metric).endMetric()
                .withNewTarget().withType("AverageValue").withAverageValue(new Quantity(averageValue)).endTarget().endExternal().build();
    }

    public static HorizontalPodAutoscaler hpa(String ns, String name, String apiVersion, String kind, String target, int min, int max, MetricSpec... metrics) {
        return new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName(name).withNamespace(ns).withGeneration(1L).endMetadata()
                .withNewSpec().withNewScaleTargetRef().withApiVersion(apiVersion).withKind(kind).withName(target).endScaleTargetRef()
                .withMinReplicas(min).withMaxReplicas(max).withMetrics(List.of(metrics)).endSpec()
                .build();
    }

    /** Fast syncs and no downscale stabilization, so a test sees several decisions in a second or two. */
    public static ControllerOptions fastOptions() {
        ControllerConfig decisions = ControllerConfig.defaults().withDownscaleStabilization(Duration.ZERO);
        return new ControllerOptions(decisions, Duration.ofMillis(250), 2, List.of(), Duration.ofSeconds(5));
    }
}
