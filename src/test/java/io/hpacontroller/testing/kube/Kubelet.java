package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hpacontroller.core.labels.Selector;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays the kubelet of the one Node a control plane has (there is no scheduler: pod templates carry
 * {@code nodeName: }{@link #NODE}). A pod bound to the node is started at once: status Running, a
 * startTime, a pod IP, every container running and ready, and the PodScheduled, Initialized,
 * ContainersReady and Ready conditions True (Ready and ContainersReady False for the namespaces held
 * with {@link #holdUnready}), written through the status subresource as a kubelet does. A pod being
 * deleted is removed (a kubelet confirms the deletion with a zero grace period).
 */
public final class Kubelet implements PodSource, AutoCloseable {

    public static final String NODE = "kube-node";

    private final KubernetesClient client;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fake-kubelet");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Pod> running = new ConcurrentHashMap<>();
    private final Set<String> starting = ConcurrentHashMap.newKeySet();
    private final Set<String> unreadyNamespaces = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ips = new AtomicInteger();
    private SharedIndexInformer<Pod> informer;
    private ScheduledExecutorService heartbeat;

    Kubelet(KubernetesClient client) {
        this.client = client;
    }

    /**
     * The fake Node beside real kubelets ({@code io.hpacontroller.testing.node}): started as below, tainted
     * {@code NoSchedule} so that the scheduler never puts a real pod on it, and its Lease renewed every
     * 10 s as a kubelet's, so the node-lifecycle controller keeps it Ready and never marks its pods unready.
     */
    public static Kubelet besideRealNodes(KubernetesClient client) {
        Kubelet kubelet = new Kubelet(client);
        kubelet.start();
        // beside real kubelets the node-lifecycle controller edits the new Node too
        kubelet.onConflictAgain(() -> client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editSpec()
                .addNewTaint().withKey("hpa-controller.io/fake-kubelet").withEffect("NoSchedule").endTaint().endSpec().build()));
        kubelet.heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fake-kubelet-lease");
            t.setDaemon(true);
            return t;
        });
        kubelet.heartbeat.scheduleWithFixedDelay(kubelet::renewLease, 0, 10, TimeUnit.SECONDS);
        return kubelet;
    }

    /** Runs the edit, and again (from the Node as it is then) while another writer's change conflicts with it. */
    private void onConflictAgain(Runnable edit) {
        for (int attempt = 1; ; attempt++) {
            try {
                edit.run();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) {
                    throw e;
                }
            }
        }
    }

    private void renewLease() {
        try {
            var now = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC);
            client.leases().inNamespace("kube-node-lease").resource(new LeaseBuilder().withNewMetadata().withName(NODE)
                    .withNamespace("kube-node-lease").endMetadata().withNewSpec().withHolderIdentity(NODE).withLeaseDurationSeconds(40)
                    .withRenewTime(now).endSpec().build()).fieldManager("fake-kubelet").forceConflicts().serverSideApply();
        } catch (KubernetesClientException e) {
            // the next renewal tries again, well within the grace period
        }
    }

    /** Registers the Node (Ready, 64 CPUs) and starts watching its pods. */
    void start() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .withLabels(Map.of("kubernetes.io/hostname", NODE, "kubernetes.io/os", "linux")).endMetadata().build()).create();
        String now = now();
        onConflictAgain(() -> client.nodes().withName(NODE).editStatus(n -> new NodeBuilder(n).editOrNewStatus()
                .withCapacity(Map.of("cpu", new Quantity("64"), "memory", new Quantity("256Gi"), "pods", new Quantity("1000")))
                .withAllocatable(Map.of("cpu", new Quantity("64"), "memory", new Quantity("256Gi"), "pods", new Quantity("1000")))
                .addNewAddress().withType("InternalIP").withAddress("127.0.0.1").endAddress()
                .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("the test fixture plays the kubelet").withLastHeartbeatTime(now).withLastTransitionTime(now).endCondition()
                .endStatus().build()));
        informer = client.pods().inAnyNamespace().withField("spec.nodeName", NODE).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                observe(pod);
            }

            @Override
            public void onUpdate(Pod old, Pod pod) {
                observe(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                running.remove(key(pod));
            }
        });
    }

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private void observe(Pod pod) {
        String key = key(pod);
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            running.remove(key);
            writer.execute(() -> remove(pod));
        } else if ("Running".equals(pod.getStatus() == null ? null : pod.getStatus().getPhase())) {
            starting.remove(key);
            running.put(key, pod);
        } else if (starting.add(key)) {
            writer.execute(() -> startPod(pod));
        }
    }

    private void startPod(Pod pod) {
        String now = now();
        boolean ready = !unreadyNamespaces.contains(pod.getMetadata().getNamespace());
        String readyText = ready ? "True" : "False";
        List<ContainerStatus> containers = new ArrayList<>();
        for (Container c : pod.getSpec().getContainers()) {
            containers.add(new ContainerStatusBuilder().withName(c.getName()).withImage(c.getImage()).withImageID("docker.io/library/" + c.getImage())
                    .withContainerID("containerd://" + Integer.toHexString(c.hashCode()) + Integer.toHexString(ips.get()))
                    .withReady(ready).withStarted(true).withRestartCount(0)
                    .withNewState().withNewRunning().withStartedAt(now).endRunning().endState().build());
        }
        int ip = ips.incrementAndGet();
        String started = pod.getStatus() != null && pod.getStatus().getStartTime() != null ? pod.getStatus().getStartTime() : now;
        PodStatus status = new PodStatusBuilder().withPhase("Running").withStartTime(started).withHostIP("127.0.0.1")
                .withPodIP("10.244." + (ip / 250) + "." + (ip % 250 + 1)).addNewPodIP().withIp("10.244." + (ip / 250) + "." + (ip % 250 + 1)).endPodIP()
                .withQosClass("Burstable")
                .withConditions(condition("Initialized", "True", now), condition("Ready", readyText, now),
                        condition("ContainersReady", readyText, now), condition("PodScheduled", "True", now))
                .withContainerStatuses(containers).build();
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .editStatus(p -> {
                        p.setStatus(status);
                        return p;
                    });
        } catch (KubernetesClientException e) {
            // changed meanwhile: start it again from what the API server has now (gone: nothing to do)
            starting.remove(key(pod));
            Pod latest = client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).get();
            if (latest != null) {
                observe(latest);
            }
        }
    }

    private static PodCondition condition(String type, String status, String time) {
        return new PodConditionBuilder().withType(type).withStatus(status).withLastTransitionTime(time).build();
    }

    private void remove(Pod pod) {
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).withGracePeriod(0).delete();
        } catch (KubernetesClientException e) {
            // gone already
        }
    }

    /** Pods of the namespace created from now on start but stay unready until {@link #release}. */
    public void holdUnready(String namespace) {
        unreadyNamespaces.add(namespace);
    }

    /** Marks the held pods of the namespace Ready (their start time stays). */
    public void release(String namespace) {
        unreadyNamespaces.remove(namespace);
        for (Pod p : client.pods().inNamespace(namespace).withField("spec.nodeName", NODE).list().getItems()) {
            if (p.getMetadata().getDeletionTimestamp() == null) {
                writer.execute(() -> startPod(p));
            }
        }
    }

    /** The running pods (started, not being deleted) of a namespace that the selector matches. */
    @Override
    public List<Pod> runningPods(String namespace, Selector selector) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : running.values()) {
            if (p.getMetadata().getNamespace().equals(namespace)
                    && selector.matches(p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels())) {
                out.add(p);
            }
        }
        out.sort(java.util.Comparator.comparing(p -> p.getMetadata().getName()));
        return out;
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.stop();
        }
        writer.shutdownNow();
        if (heartbeat != null) {
            heartbeat.shutdownNow();
        }
    }
}
