package io.hpacontroller.pods;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

import io.hpacontroller.api.ObjectList;
import io.hpacontroller.api.UnreadMetadata;
import java.util.List;
import java.util.Map;

/**
 * A Pod as the Pod informer reads it: the metadata and the few fields the calculator needs, every
 * other field skipped while the JSON is read. fabric8's {@code Pod} would make Jackson load and
 * introspect the whole Pod type graph (volumes, probes, affinity, security contexts, each with its
 * builder): hundreds of classes the controller would carry for its whole life, and garbage for every
 * pod of every list and watch event. {@link PodCompactor} turns it into a cached pod.
 */
@Group("")
@Version("v1")
@Kind("Pod")
@Plural("pods")
@JsonDeserialize(using = JsonDeserializer.None.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public final class PodFields implements HasMetadata, Namespaced {

    private String apiVersion = "v1";
    private String kind = "Pod";
    @UnreadMetadata
    private ObjectMeta metadata;
    private Spec spec;
    private Status status;

    /** {@code spec}: the containers (and sidecars among the init containers) and the pod-level requests. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Spec(List<Container> containers, List<Container> initContainers, Requirements resources) {
    }

    /** A container: its name, its restart policy (Always makes an init container a sidecar) and its requests. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Container(String name, String restartPolicy, Requirements resources) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Requirements(Map<String, Quantity> requests) {
    }

    /** {@code status}: the phase, the start time and the conditions. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Status(String phase, String startTime, List<Condition> conditions) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Condition(String type, String status, String lastTransitionTime) {
    }

    /** A page of a pod list. */
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class Items extends ObjectList<PodFields> {
    }

    public PodFields() {
    }

    public PodFields(ObjectMeta metadata, Spec spec, Status status) {
        this.metadata = metadata;
        this.spec = spec;
        this.status = status;
    }

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
        return apiVersion;
    }

    @Override
    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    @Override
    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public Spec getSpec() {
        return spec;
    }

    public void setSpec(Spec spec) {
        this.spec = spec;
    }

    public Status getStatus() {
        return status;
    }

    public void setStatus(Status status) {
        this.status = status;
    }
}
