package io.hpacontroller.api;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On the {@code metadata} of a slim model class read by an informer ({@code PodFields}, {@code WorkloadFields}): the
 * fields of the {@code ObjectMeta} nobody reads are skipped while the JSON is read, not built and dropped. Above all
 * {@code managedFields}: per manager a nested map of every field it set (the creator's spec, the kubelet's status),
 * often more of a pod's JSON than everything the pod cache keeps, and each of its maps built and thrown away for every
 * pod of every list and watch event.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.ANNOTATION_TYPE})
@JacksonAnnotationsInside
@JsonIgnoreProperties({"managedFields", "annotations", "ownerReferences", "finalizers"})
public @interface UnreadMetadata {
}
