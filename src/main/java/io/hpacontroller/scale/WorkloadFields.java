package io.hpacontroller.scale;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

import io.hpacontroller.api.ObjectList;
import io.hpacontroller.api.UnreadMetadata;
import io.hpacontroller.pods.PodFields;
import java.util.Map;

/**
 * The built-in workload kinds as their informers read them: the metadata and what the scale
 * subresource would say (spec.replicas, status.replicas, the selector), every other field skipped
 * while the JSON is read. fabric8's own classes would load the whole Pod type graph of the pod
 * template (see {@link PodFields}). {@link WorkloadScales} keeps only the scale.
 */
public final class WorkloadFields {

    private WorkloadFields() {
    }

    /** spec of Deployments, StatefulSets and ReplicaSets. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record AppsSpec(Integer replicas, LabelSelector selector) {
    }

    /** spec of ReplicationControllers: the selector is a plain map. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ControllerSpec(Integer replicas, Map<String, String> selector) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Status(Integer replicas) {
    }

    /** One object of a workload kind. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public abstract static class Workload<S> implements HasMetadata {
        private String apiVersion;
        private String kind;
        @UnreadMetadata
        private ObjectMeta metadata;
        private S spec;
        private Status status;

        @Override
        public ObjectMeta getMetadata() {
            return metadata;
        }

        @Override
        public void setMetadata(ObjectMeta metadata) {
            this.metadata = metadata;
        }

        @Override
        public String getApiVersion() {
            return apiVersion == null ? HasMetadata.super.getApiVersion() : apiVersion;
        }

        @Override
        public void setApiVersion(String apiVersion) {
            this.apiVersion = apiVersion;
        }

        @Override
        public String getKind() {
            return kind == null ? HasMetadata.super.getKind() : kind;
        }

        public void setKind(String kind) {
            this.kind = kind;
        }

        public S getSpec() {
            return spec;
        }

        public void setSpec(S spec) {
            this.spec = spec;
        }

        public Status getStatus() {
            return status;
        }

        public void setStatus(Status status) {
            this.status = status;
        }
    }

    @Group("apps")
    @Version("v1")
    @Kind("Deployment")
    @Plural("deployments")
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class Deployment extends Workload<AppsSpec> {
    }

    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class DeploymentItems extends ObjectList<Deployment> {
    }

    @Group("apps")
    @Version("v1")
    @Kind("StatefulSet")
    @Plural("statefulsets")
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class StatefulSet extends Workload<AppsSpec> {
    }

    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class StatefulSetItems extends ObjectList<StatefulSet> {
    }

    @Group("apps")
    @Version("v1")
    @Kind("ReplicaSet")
    @Plural("replicasets")
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class ReplicaSet extends Workload<AppsSpec> {
    }

    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class ReplicaSetItems extends ObjectList<ReplicaSet> {
    }

    @Group("")
    @Version("v1")
    @Kind("ReplicationController")
    @Plural("replicationcontrollers")
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class ReplicationController extends Workload<ControllerSpec> {
    }

    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class ReplicationControllerItems extends ObjectList<ReplicationController> {
    }
}
