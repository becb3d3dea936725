package io.hpacontroller.core.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Upstream's name checks from {@code k8s.io/apimachinery} with their messages: {@code IsDNS1123Subdomain}
 * (object names), {@code IsDNS1123Label} (namespaces, container names) and {@code IsValidPathSegmentName}
 * (the kind and name of a reference, a metric's name). Label keys ({@code core.labels}) check their prefix here too.
 */
public final class NameSyntax {

    private static final String DNS1123_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_SUBDOMAIN_FORMAT = DNS1123_LABEL_FORMAT + "(\\." + DNS1123_LABEL_FORMAT + ")*";
    private static final Pattern DNS1123_LABEL = Pattern.compile(DNS1123_LABEL_FORMAT);
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(DNS1123_SUBDOMAIN_FORMAT);
    private static final int DNS1123_LABEL_MAX = 63;
    private static final int DNS1123_SUBDOMAIN_MAX = 253;

    private NameSyntax() {
    }

    public static List<String> dns1123Subdomain(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > DNS1123_SUBDOMAIN_MAX) {
            errors.add("must be no more than " + DNS1123_SUBDOMAIN_MAX + " characters");
        }
        if (!DNS1123_SUBDOMAIN.matcher(value).matches()) {
            errors.add("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end"
                    + " with an alphanumeric character (e.g. 'example.com', regex used for validation is '" + DNS1123_SUBDOMAIN_FORMAT + "')");
        }
        return errors;
    }

    public static List<String> dns1123Label(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > DNS1123_LABEL_MAX) {
            errors.add("must be no more than " + DNS1123_LABEL_MAX + " characters");
        }
        if (!DNS1123_LABEL.matcher(value).matches()) {
            // upstream's message has the two spaces after 'my-name',
            errors.add("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an"
                    + " alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '" + DNS1123_LABEL_FORMAT + "')");
        }
        return errors;
    }

    /** What makes a name unusable as one segment of a URL path. */
    public static List<String> pathSegmentName(String name) {
        List<String> errors = new ArrayList<>();
        for (String illegal : List.of(".", "..")) {
            if (name.equals(illegal)) {
                errors.add("may not be '" + illegal + "'");
            }
        }
        for (String illegal : List.of("/", "%")) {
            if (name.contains(illegal)) {
                errors.add("may not contain '" + illegal + "'");
            }
        }
        return errors;
    }
}
