package io.hpacontroller.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;

import java.util.ArrayList;
import java.util.List;

/**
 * A page of a list of pods or workloads ({@code PodFields}, {@code WorkloadFields}), as an informer lists them. A
 * subclass binds the item type, so the items (which carry no kind of their own in a list) are read as
 * that type.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonDeserialize(using = JsonDeserializer.None.class)
public abstract class ObjectList<T extends HasMetadata> implements KubernetesResourceList<T> {

    private String apiVersion;
    private String kind;
    private ListMeta metadata = new ListMeta();
    private List<T> items = new ArrayList<>();

    public String getApiVersion() {
        return apiVersion;
    }

    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    @Override
    public ListMeta getMetadata() {
        return metadata;
    }

    public void setMetadata(ListMeta metadata) {
        this.metadata = metadata;
    }

    @Override
    public List<T> getItems() {
        return items;
    }

    public void setItems(List<T> items) {
        this.items = items;
    }
}
