package io.hpacontroller.core.validation;

/** A field's path in an object, printed as upstream's {@code field.Path}: {@code spec.metrics[0].resource.target}. */
public record FieldPath(String text) {

    public static FieldPath of(String root) {
        return new FieldPath(root);
    }

    public FieldPath child(String name) {
        return new FieldPath(text.isEmpty() ? name : text + "." + name);
    }

    public FieldPath index(int i) {
        return new FieldPath(text + "[" + i + "]");
    }

    /** A map entry: {@code metadata.labels[app]}. */
    public FieldPath key(String k) {
        return new FieldPath(text + "[" + k + "]");
    }

    @Override
    public String toString() {
        return text;
    }
}
