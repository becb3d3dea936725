package io.hpacontroller.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;

/**
 * Plays kube-controller-manager's workload controllers in a {@link MockCluster}: for every Deployment
 * and every example.com Widget it keeps as many Running, Ready pods as spec.replicas asks, writes
 * status.replicas, and reports each pod's CPU usage to the metrics backend (what the test set for the
 * workload, or 0).
 */
public final class WorkloadController implements AutoCloseable {

    private final KubernetesClient client;
    private final MetricsBackend metrics;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-workload-controller");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, String> cpuPerPod = new ConcurrentHashMap<>();
    private final AtomicLong podSeq = new AtomicLong();

    WorkloadController(KubernetesClient client, MetricsBackend metrics) {
        this.client = client;
        this.metrics = metrics;
    }

    void start() {
        loop.scheduleWithFixedDelay(() -> {
            try {
                syncAll();
            } catch (RuntimeException e) {
                // the API may be failing on purpose in a test; try again next tick
            }
        }, 0, 50, TimeUnit.MILLISECONDS);
    }

    /** The CPU usage every pod of a workload reports from now on, e.g. "250m". */
    public void setCpuPerPod(String namespace, String workload, String cpu) {
        cpuPerPod.put(namespace + "/" + workload, cpu);
    }

    /**
     * Waits until every Deployment of the namespace has the pods its spec asks for, with their metrics, and its
     * status.replicas written (the last thing a tick does).
     */
    public void awaitSettled(String namespace) {
        await().atMost(Waits.STATE).until(() -> client.apps().deployments().inNamespace(namespace).list().getItems().stream()
                .allMatch(d -> d.getStatus() != null && Objects.equals(d.getStatus().getReplicas(), d.getSpec().getReplicas())));
    }

    synchronized void syncAll() {
        for (Deployment d : client.apps().deployments().inAnyNamespace().list().getItems()) {
            Map<String, String> labels = d.getSpec().getTemplate() != null && d.getSpec().getTemplate().getMetadata() != null
                    && d.getSpec().getTemplate().getMetadata().getLabels() != null
                    ? d.getSpec().getTemplate().getMetadata().getLabels() : d.getSpec().getSelector().getMatchLabels();
            Map<String, Quantity> requests = Map.of("cpu", new Quantity("100m"));
            if (d.getSpec().getTemplate() != null && d.getSpec().getTemplate().getSpec() != null
                    && !d.getSpec().getTemplate().getSpec().getContainers().isEmpty()
                    && d.getSpec().getTemplate().getSpec().getContainers().get(0).getResources() != null
                    && d.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests() != null) {
                requests = d.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests();
            }
            String ns = d.getMetadata().getNamespace();
            int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            int have = syncPods(ns, d.getMetadata().getName(), labels, requests, want);
            if (d.getStatus() == null || d.getStatus().getReplicas() == null || d.getStatus().getReplicas() != have) {
                d.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder().withReplicas(have).withReadyReplicas(have).build());
                try {
                    client.apps().deployments().inNamespace(ns).resource(d).updateStatus();
                } catch (KubernetesClientException e) {
                    // changed meanwhile (e.g. scaled): next tick
                }
            }
        }
        for (GenericKubernetesResource w : client.genericKubernetesResources(MockCluster.WIDGETS).inAnyNamespace().list().getItems()) {
            String ns = w.getMetadata().getNamespace();
            String name = w.getMetadata().getName();
            Object replicas = ((Map<?, ?>) w.getAdditionalProperties().getOrDefault("spec", Map.of())).get("replicas");
            int want = replicas instanceof Number n ? n.intValue() : 1;
            int have = syncPods(ns, name, Map.of("widget", name), Map.of("cpu", new Quantity("100m")), want);
            @SuppressWarnings("unchecked")
            Map<String, Object> status = (Map<String, Object>) w.getAdditionalProperties().get("status");
            if (status == null || !Integer.valueOf(have).equals(status.get("replicas"))) {
                Map<String, Object> s = new HashMap<>();
                s.put("replicas", have);
                s.put("selector", "widget=" + name);
                w.getAdditionalProperties().put("status", s);
                try {
                    client.genericKubernetesResources(MockCluster.WIDGETS).inNamespace(ns).resource(w).update();
                } catch (KubernetesClientException e) {
                    // next tick
                }
            }
        }
    }

    private int syncPods(String ns, String workload, Map<String, String> labels, Map<String, Quantity> requests, int want) {
        List<Pod> pods = new ArrayList<>(client.pods().inNamespace(ns).withLabels(labels).list().getItems());
        pods.removeIf(p -> !workload.equals(p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get("workload")));
        pods.sort(Comparator.comparing(p -> p.getMetadata().getName()));
        String started = Instant.now().minusSeconds(3600).toString();
        while (pods.size() < want) {
            Pod pod = new PodBuilder()
                    .withNewMetadata().withName(workload + "-" + podSeq.incrementAndGet()).withNamespace(ns).withLabels(labels)
                    .addToAnnotations("workload", workload).endMetadata()
                    .withNewSpec().addNewContainer().withName("app").withImage("nginx").withNewResources().withRequests(requests)
                    .endResources().endContainer().endSpec()
                    .withNewStatus().withPhase("Running").withStartTime(started)
                    .addNewCondition().withType("Ready").withStatus("True").withLastTransitionTime(started).endCondition()
                    .endStatus().build();
            pods.add(client.pods().inNamespace(ns).resource(pod).create());
        }
        while (pods.size() > want) {
            Pod last = pods.remove(pods.size() - 1);
            client.pods().inNamespace(ns).withName(last.getMetadata().getName()).delete();
            metrics.removePod(ns, last.getMetadata().getName());
        }
        String cpu = cpuPerPod.getOrDefault(ns + "/" + workload, "0");
        for (Pod p : pods) {
            metrics.setPodUsage(ns, p.getMetadata().getName(), labels, cpu, "10Mi");
        }
        return pods.size();
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
