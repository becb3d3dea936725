package io.hpacontroller.core.labels;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.hpacontroller.core.GoText;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

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
     * nothing, an empty selector selects everything. Keys and values are validated as upstream's
     * {@code NewRequirement} does, with its messages; matchLabels are checked in key order (upstream's map
     * order is random).
     *
     * @throws IllegalArgumentException on an unknown operator or an invalid requirement, with upstream's message
     */
    public static Selector fromLabelSelector(LabelSelector selector) {
        if (selector == null) {
            return NOTHING;
        }
        List<Requirement> reqs = new ArrayList<>();
        if (selector.getMatchLabels() != null) {
            for (Map.Entry<String, String> e : new TreeMap<>(selector.getMatchLabels()).entrySet()) {
                String value = e.getValue() == null ? "" : e.getValue();
                reqs.add(checked(e.getKey(), Operator.EQUALS, List.of(value), null));
            }
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement expr : selector.getMatchExpressions()) {
                List<String> values = expr.getValues() == null ? List.of() : expr.getValues();
                String op = String.valueOf(expr.getOperator());
                Operator operator = switch (op) {
                    case "In" -> Operator.IN;
                    case "NotIn" -> Operator.NOT_IN;
                    case "Exists" -> Operator.EXISTS;
                    case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
                    default -> throw new IllegalArgumentException("\"" + op + "\" is not a valid label selector operator");
                };
                String countError = switch (operator) {
                    case IN, NOT_IN -> values.isEmpty() ? "for 'in', 'notin' operators, values set can't be empty" : null;
                    default -> values.isEmpty() ? null : "values set must be empty for exists and does not exist";
                };
                reqs.add(checked(expr.getKey(), operator, values, countError));
            }
        }
        return new Selector(reqs, false);
    }

    /** Upstream {@code NewRequirement}: every error of the key, the number of values and each value, aggregated. */
    private static Requirement checked(String key, Operator operator, List<String> values, String countError) {
        String k = key == null ? "" : key;
        List<String> errors = new ArrayList<>();
        String keyError = LabelSyntax.keyError(k);
        if (keyError != null) {
            errors.add(keyError);
        }
        if (countError != null) {
            errors.add("values: Invalid value: " + GoText.stringSlice(values) + ": " + countError);
        }
        for (int i = 0; i < values.size(); i++) {
            String valueError = LabelSyntax.valueError(k, i, values.get(i) == null ? "" : values.get(i));
            if (valueError != null) {
                errors.add(valueError);
            }
        }
        if (!errors.isEmpty()) {
            // upstream's utilerrors aggregate: one error alone, several in brackets
            throw new IllegalArgumentException(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
        }
        return new Requirement(k, operator, operator == Operator.EQUALS ? Set.of(values.get(0)) : new TreeSet<>(values));
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
        String error = LabelSyntax.keyError(key);
        if (error != null) {
            throw new IllegalArgumentException(error);
        }
    }

    private static void validateValue(String key, String value) {
        String error = LabelSyntax.valueError(key, 0, value);
        if (error != null) {
            throw new IllegalArgumentException(error);
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

        /** Upstream's parseRequirement: a key, then an operator and its values (none for "key" and "!key"). */
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
            Operator op = operator();
            return switch (op) {
                case IN, NOT_IN -> new Requirement(key, op, values(key));
                case GREATER_THAN, LESS_THAN -> integer(single(key, op));
                default -> single(key, op);
            };
        }

        /** Upstream's parseOperator: one of =, ==, !=, &gt;, &lt;, in, notin. */
        private Operator operator() {
            if (s.startsWith("==", pos)) {
                pos += 2;
                return Operator.EQUALS;
            }
            if (s.startsWith("!=", pos)) {
                pos += 2;
                return Operator.NOT_EQUALS;
            }
            if (peek() == '=') {
                pos++;
                return Operator.EQUALS;
            }
            if (peek() == '>' || peek() == '<') {
                Operator op = peek() == '>' ? Operator.GREATER_THAN : Operator.LESS_THAN;
                pos++;
                return op;
            }
            String word = identifier();
            return switch (word) {
                case "in" -> Operator.IN;
                case "notin" -> Operator.NOT_IN;
                default -> throw error("expected one of '=', '==', '!=', 'in', 'notin', found '" + word + "'");
            };
        }

        /** A Gt or Lt requirement, whose value must be an integer. */
        private static Requirement integer(Requirement r) {
            try {
                Long.parseLong(r.values().iterator().next());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("for 'Gt', 'Lt' operators, the value must be an integer");
            }
            return r;
        }

        /** Upstream's parseValues: "(v1, v2, ...)", not empty. */
        private Set<String> values(String key) {
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
                validateValue(key, v);
                values.add(v);
                skipSpace();
                if (peek() == ')') {
                    pos++;
                    break;
                }
                expect(',');
            }
            return values;
        }

        private Requirement single(String key, Operator op) {
            skipSpace();
            String v = value();
            validateValue(key, v);
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
