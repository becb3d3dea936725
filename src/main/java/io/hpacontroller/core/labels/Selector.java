package io.hpacontroller.core.labels;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A Kubernetes label selector: the parsed form of the text in a scale subresource's
 * {@code status.selector} ("app=web,tier in (a,b),!canary") or of a {@code metav1.LabelSelector}.
 *
 * <p>Matching is done here, never by the API server: the controller selects pods from its own cache,
 * and the mock server used in tests ignores set-based selectors.
 */
public final class Selector {

    /** The operators of a requirement. */
    public enum Operator { EQUALS, NOT_EQUALS, IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN }

    /** One requirement: a key, an operator and its values (sorted). */
    public record Requirement(String key, Operator operator, Set<String> values) {
        boolean matches(Function<String, String> labels) {
            String value = labels.apply(key);
            return switch (operator) {
                case EQUALS, IN -> value != null && values.contains(value);
                case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
                case EXISTS -> value != null;
                case DOES_NOT_EXIST -> value == null;
                case GREATER_THAN -> value != null && compareNumber(value, values.iterator().next()) > 0;
                case LESS_THAN -> value != null && compareNumber(value, values.iterator().next()) < 0;
            };
        }

        private static int compareNumber(String value, String bound) {
            try {
                return Long.compare(Long.parseLong(value), Long.parseLong(bound));
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        @Override
        public String toString() {
            return switch (operator) {
                case EQUALS -> key + "=" + values.iterator().next();
                case NOT_EQUALS -> key + "!=" + values.iterator().next();
                case IN -> key + " in (" + String.join(",", values) + ")";
                case NOT_IN -> key + " notin (" + String.join(",", values) + ")";
                case EXISTS -> key;
                case DOES_NOT_EXIST -> "!" + key;
                case GREATER_THAN -> key + ">" + values.iterator().next();
                case LESS_THAN -> key + "<" + values.iterator().next();
            };
        }
    }

    // compiled once: every sync parses its target's selector
    private static final Pattern LABEL_KEY = Pattern.compile("([A-Za-z0-9.-]+/)?[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");
    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");

    private static final Selector EVERYTHING = new Selector(List.of(), false);
    private static final Selector NOTHING = new Selector(List.of(), true);

    private final List<Requirement> requirements;
    private final boolean nothing;

    private Selector(List<Requirement> requirements, boolean nothing) {
        List<Requirement> sorted = new ArrayList<>(requirements);
        sorted.sort((a, b) -> a.key().equals(b.key()) ? a.operator().compareTo(b.operator()) : a.key().compareTo(b.key()));
        this.requirements = Collections.unmodifiableList(sorted);
        this.nothing = nothing;
    }

    /** The selector that matches every set of labels. */
    public static Selector everything() {
        return EVERYTHING;
    }

    /** The selector that matches nothing. */
    public static Selector nothing() {
        return NOTHING;
    }

    /** A selector that matches exactly these labels. */
    public static Selector ofLabels(Map<String, String> labels) {
        List<Requirement> reqs = new ArrayList<>();
        labels.forEach((k, v) -> reqs.add(new Requirement(k, Operator.EQUALS, Set.of(v))));
        return new Selector(reqs, false);
    }

    /**
     * Converts a {@code metav1.LabelSelector} like {@code LabelSelectorAsSelector}: null selects
     * nothing, an empty selector selects everything.
     *
     * @throws IllegalArgumentException on an unknown operator or a malformed requirement
     */
    public static Selector fromLabelSelector(LabelSelector selector) {
        if (selector == null) {
            return NOTHING;
        }
        List<Requirement> reqs = new ArrayList<>();
        if (selector.getMatchLabels() != null) {
            new TreeMap<>(selector.getMatchLabels()).forEach((k, v) -> {
                validateKey(k);
                reqs.add(new Requirement(k, Operator.EQUALS, Set.of(v == null ? "" : v)));
            });
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement expr : selector.getMatchExpressions()) {
                String key = expr.getKey();
                validateKey(key);
                List<String> values = expr.getValues() == null ? List.of() : expr.getValues();
                String op = String.valueOf(expr.getOperator());
                switch (op) {
                    case "In", "NotIn" -> {
                        if (values.isEmpty()) {
                            throw new IllegalArgumentException("values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
                        }
                        reqs.add(new Requirement(key, op.equals("In") ? Operator.IN : Operator.NOT_IN, new TreeSet<>(values)));
                    }
                    case "Exists", "DoesNotExist" -> {
                        if (!values.isEmpty()) {
                            throw new IllegalArgumentException("values: Invalid value: " + values + ": values set must be empty for exists and does not exist");
                        }
                        reqs.add(new Requirement(key, op.equals("Exists") ? Operator.EXISTS : Operator.DOES_NOT_EXIST, Set.of()));
                    }
                    default -> throw new IllegalArgumentException("\"" + op + "\" is not a valid label selector operator");
                }
            }
        }
        return new Selector(reqs, false);
    }

    /**
     * Parses the text form used by {@code status.selector} and {@code kubectl -l}, like
     * {@code labels.Parse}: the empty string selects everything.
     *
     * @throws IllegalArgumentException when the text is not a valid selector
     */
    public static Selector parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("selector is required");
        }
        return new Parser(text).parse();
    }

    /** Whether these labels satisfy every requirement. */
    public boolean matches(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        return matches(l::get);
    }

    /** Whether the labels, looked up by key (null when absent), satisfy every requirement. */
    public boolean matches(Function<String, String> labels) {
        if (nothing) {
            return false;
        }
        for (Requirement r : requirements) {
            if (!r.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    public boolean isEverything() {
        return !nothing && requirements.isEmpty();
    }

    public boolean isNothing() {
        return nothing;
    }

    public List<Requirement> requirements() {
        return requirements;
    }

    /**
     * The labels that every matching object must carry with exactly these values (the
     * {@code key=value} and single-valued {@code key in (value)} requirements). Used to index pods.
     */
    public Map<String, String> requiredLabels() {
        Map<String, String> out = new TreeMap<>();
        for (Requirement r : requirements) {
            if ((r.operator() == Operator.EQUALS || r.operator() == Operator.IN) && r.values().size() == 1) {
                out.put(r.key(), r.values().iterator().next());
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Selector s && s.nothing == nothing && s.requirements.equals(requirements);
    }

    @Override
    public int hashCode() {
        return Objects.hash(requirements, nothing);
    }

    @Override
    public String toString() {
        if (nothing) {
            return "<none>";
        }
        List<String> parts = new ArrayList<>();
        for (Requirement r : requirements) {
            parts.add(r.toString());
        }
        return String.join(",", parts);
    }

    private static void validateKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("label key must not be empty");
        }
        if (key.length() > 317 || !LABEL_KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("invalid label key \"" + key + "\"");
        }
    }

    private static void validateValue(String value) {
        if (value.length() > 63 || !(value.isEmpty() || LABEL_VALUE.matcher(value).matches())) {
            throw new IllegalArgumentException("invalid label value: \"" + value + "\"");
        }
    }

    /** A small recursive-descent parser for the selector text syntax. */
    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        Selector parse() {
            List<Requirement> reqs = new ArrayList<>();
            skipSpace();
            if (pos == s.length()) {
                return EVERYTHING;
            }
            while (true) {
                reqs.add(requirement());
                skipSpace();
                if (pos == s.length()) {
                    break;
                }
                expect(',');
            }
            return new Selector(reqs, false);
        }

        private Requirement requirement() {
            skipSpace();
            if (peek() == '!') {
                pos++;
                String key = identifier();
                validateKey(key);
                return new Requirement(key, Operator.DOES_NOT_EXIST, Set.of());
            }
            String key = identifier();
            validateKey(key);
            skipSpace();
            if (pos == s.length() || peek() == ',') {
                return new Requirement(key, Operator.EXISTS, Set.of());
            }
            if (s.startsWith("==", pos)) {
                pos += 2;
                return single(key, Operator.EQUALS);
            }
            if (s.startsWith("!=", pos)) {
                pos += 2;
                return single(key, Operator.NOT_EQUALS);
            }
            if (peek() == '=') {
                pos++;
                return single(key, Operator.EQUALS);
            }
            if (peek() == '>' || peek() == '<') {
                Operator op = peek() == '>' ? Operator.GREATER_THAN : Operator.LESS_THAN;
                pos++;
                Requirement r = single(key, op);
                try {
                    Long.parseLong(r.values().iterator().next());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("for 'Gt', 'Lt' operators, the value must be an integer");
                }
                return r;
            }
            String word = identifier();
            Operator op = switch (word) {
                case "in" -> Operator.IN;
                case "notin" -> Operator.NOT_IN;
                default -> throw error("expected one of '=', '==', '!=', 'in', 'notin', found '" + word + "'");
            };
            skipSpace();
            expect('(');
            Set<String> values = new TreeSet<>();
            skipSpace();
            if (peek() == ')') {
                throw error("for 'in', 'notin' operators, values set can't be empty");
            }
            while (true) {
                skipSpace();
                String v = value();
                validateValue(v);
                values.add(v);
                skipSpace();
                if (peek() == ')') {
                    pos++;
                    break;
                }
                expect(',');
            }
            return new Requirement(key, op, values);
        }

        private Requirement single(String key, Operator op) {
            skipSpace();
            String v = value();
            validateValue(v);
            return new Requirement(key, op, Set.of(v));
        }

        private String identifier() {
            int start = pos;
            while (pos < s.length() && !isDelimiter(s.charAt(pos))) {
                pos++;
            }
            if (start == pos) {
                throw error("expected a label key");
            }
            return s.substring(start, pos);
        }

        private String value() {
            int start = pos;
            while (pos < s.length() && !isDelimiter(s.charAt(pos))) {
                pos++;
            }
            return s.substring(start, pos);
        }

        private static boolean isDelimiter(char c) {
            return Character.isWhitespace(c) || c == ',' || c == '=' || c == '!' || c == '(' || c == ')' || c == '<' || c == '>';
        }

        private char peek() {
            return pos < s.length() ? s.charAt(pos) : '\0';
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private void skipSpace() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("unable to parse selector \"" + s + "\" at position " + pos + ": " + what);
        }
    }
}
