package io.hpacontroller.core.labels;

import io.hpacontroller.core.GoText;
import io.hpacontroller.core.validation.NameSyntax;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What makes a label key or value valid, with the messages of upstream's {@code k8s.io/apimachinery}
 * validation ({@code IsQualifiedName}, {@code IsValidLabelValue}) and the field errors its label selectors
 * report ({@code values[0][path]: Invalid value: "/api": ...}), so an HPA whose metric selector is invalid
 * reads the same error as under kube-controller-manager.
 */
final class LabelSyntax {

    private static final String QUALIFIED_NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String LABEL_VALUE_FORMAT = "(" + QUALIFIED_NAME_FORMAT + ")?";
    // compiled once: every sync parses its target's selector
    private static final Pattern QUALIFIED_NAME = Pattern.compile(QUALIFIED_NAME_FORMAT);
    private static final Pattern LABEL_VALUE = Pattern.compile(LABEL_VALUE_FORMAT);

    private static final String QUALIFIED_NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    private static final String LABEL_VALUE_MESSAGE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

    private LabelSyntax() {
    }

    /** The field error for an invalid label key ({@code key: Invalid value: ...}), or null when the key is valid. */
    static String keyError(String key) {
        List<String> errors = qualifiedNameErrors(key);
        return errors.isEmpty() ? null : invalid("key", key, errors);
    }

    /** The field error for the i-th value of a requirement on {@code key}, or null when the value is valid. */
    static String valueError(String key, int index, String value) {
        List<String> errors = labelValueErrors(value);
        return errors.isEmpty() ? null : invalid("values[" + index + "][" + key + "]", value, errors);
    }

    /** Upstream's {@code field.Invalid(path, value, detail).Error()} for a string value. */
    private static String invalid(String path, String value, List<String> details) {
        return path + ": Invalid value: " + GoText.quote(value) + ": " + String.join("; ", details);
    }

    /** Upstream {@code validation.IsQualifiedName}. */
    private static List<String> qualifiedNameErrors(String value) {
        List<String> errors = new ArrayList<>();
        String[] parts = value.split("/", -1);
        String name;
        if (parts.length == 1) {
            name = parts[0];
        } else if (parts.length == 2) {
            String prefix = parts[0];
            name = parts[1];
            if (prefix.isEmpty()) {
                errors.add("prefix part must be non-empty");
            } else {
                for (String e : NameSyntax.dns1123Subdomain(prefix)) {
                    errors.add("prefix part " + e);
                }
            }
        } else {
            errors.add("a qualified name " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc")
                    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return errors;
        }
        if (name.isEmpty()) {
            errors.add("name part must be non-empty");
        } else if (name.length() > 63) {
            errors.add("name part must be no more than 63 characters");
        }
        if (!QUALIFIED_NAME.matcher(name).matches()) {
            errors.add("name part " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc"));
        }
        return errors;
    }

    /** Upstream {@code validation.IsValidLabelValue}. */
    private static List<String> labelValueErrors(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > 63) {
            errors.add("must be no more than 63 characters");
        }
        if (!LABEL_VALUE.matcher(value).matches()) {
            errors.add(regexError(LABEL_VALUE_MESSAGE, LABEL_VALUE_FORMAT, "MyValue", "my_value", "12345"));
        }
        return errors;
    }

    /** Upstream {@code validation.RegexError}, examples and all (its double spaces included). */
    private static String regexError(String message, String format, String... examples) {
        StringBuilder sb = new StringBuilder(message).append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            if (i > 0) {
                sb.append(" or ");
            }
            sb.append('\'').append(examples[i]).append("', ");
        }
        return sb.append("regex used for validation is '").append(format).append("')").toString();
    }
}
