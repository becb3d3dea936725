/**
 * What the API server refuses in an {@code autoscaling/v2} HorizontalPodAutoscaler, mirrored from upstream's
 * {@code pkg/apis/autoscaling/validation} (v1.37) with its field paths and messages: {@link HpaValidation} for
 * a decoded object, {@link StrictDecoding} for the step before it (unknown fields and values of the wrong type,
 * refused like {@code kubectl apply}'s default {@code --validate=strict}). Each problem is a {@link FieldError}
 * that prints as upstream's {@code field.Error} does ({@code spec.maxReplicas: Invalid value: 0: must be
 * greater than 0}). Nothing here decides a replica count.
 */
package io.hpacontroller.core.validation;
