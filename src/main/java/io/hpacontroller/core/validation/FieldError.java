package io.hpacontroller.core.validation;

import io.fabric8.kubernetes.api.model.Quantity;
import io.hpacontroller.core.GoText;

import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One problem with one field, printed as upstream's {@code field.Error}:
 * {@code spec.metrics[0].resource.target.type: Invalid value: "Utilisation": must be either Utilization, Value, or AverageValue}.
 * A quantity is printed as its text ({@code Invalid value: "-1": must be positive}); upstream prints the Go struct
 * behind it. Two kinds come from decoding, before validation: an unknown field, and a value of the wrong type.
 *
 * @param field  where
 * @param type   what kind of problem
 * @param value  the bad value as Go prints it ({@code 0}, {@code "Utilisation"}, {@code null}); null when the message shows none
 * @param detail what is wrong with it; null when the type says it all
 */
public record FieldError(FieldPath field, Type type, String value, String detail) {

    /** Upstream's {@code field.ErrorType}s that HPA validation uses, and the two decoding problems. */
    public enum Type {
        REQUIRED("Required value"),
        INVALID("Invalid value"),
        NOT_SUPPORTED("Unsupported value"),
        FORBIDDEN("Forbidden"),
        /** The field is not part of the object's schema (the API server's strict decoding refuses it). */
        UNKNOWN_FIELD("unknown field"),
        /** The value has the wrong JSON type for the field ({@code maxReplicas: "three"}). */
        WRONG_TYPE("cannot unmarshal");

        private final String text;

        Type(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    public static FieldError required(FieldPath field, String detail) {
        return new FieldError(field, Type.REQUIRED, null, detail);
    }

    public static FieldError invalid(FieldPath field, Object value, String detail) {
        return new FieldError(field, Type.INVALID, goValue(value), detail);
    }

    /** An unsupported value with the values that are: {@code supported values: "Max", "Min"}. */
    public static FieldError notSupported(FieldPath field, Object value, List<String> supported) {
        return new FieldError(field, Type.NOT_SUPPORTED, goValue(value),
                "supported values: " + supported.stream().map(GoText::quote).collect(Collectors.joining(", ")));
    }

    public static FieldError forbidden(FieldPath field, String detail) {
        return new FieldError(field, Type.FORBIDDEN, null, detail);
    }

    /** A field the schema does not have, with the ones it has (a typo is then easy to spot). */
    public static FieldError unknownField(FieldPath field, Collection<String> known) {
        return new FieldError(field, Type.UNKNOWN_FIELD, null, known.isEmpty() ? null : "known fields: " + String.join(", ", known));
    }

    /**
     * A value of the wrong JSON type: {@code cannot unmarshal string "three" into int32}.
     *
     * @param json   the JSON value as Go names it, with the value ({@code string "three"}, {@code number 1.5})
     * @param goType the field's type ({@code int32}, {@code string}, {@code a list}, {@code an object})
     */
    public static FieldError wrongType(FieldPath field, String json, String goType) {
        return new FieldError(field, Type.WRONG_TYPE, json, goType);
    }

    /** The message without the field: upstream's {@code ErrorBody()}. */
    public String body() {
        return switch (type) {
            case UNKNOWN_FIELD -> detail == null ? type.toString() : type + " (" + detail + ")";
            case WRONG_TYPE -> type + " " + value + " into " + detail;
            default -> type + (value == null ? "" : ": " + value) + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        };
    }

    @Override
    public String toString() {
        return field + ": " + body();
    }

    /** A value as Go's {@code %v} / {@code %q} prints it in a field error. */
    static String goValue(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof Quantity q) {
            return GoText.quote(q.toString());
        }
        return GoText.quote(value.toString());
    }
}
