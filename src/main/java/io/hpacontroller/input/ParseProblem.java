package io.hpacontroller.input;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a JSON or YAML text could not be parsed, in the parser's own words and with where: "Unexpected
 * end-of-input: expected close marker for Object (at line 4, column 1)". One line, no excerpts, no class
 * names: what a user reads when a case file, a scenario or a kubeconfig is broken.
 */
public final class ParseProblem {

    private static final Pattern YAML_MARK = Pattern.compile("^ in reader, (line \\d+, column \\d+):");
    /** Jackson's "(start marker at [Source: ...; line: 1, column: 1])": where the unclosed object or array began. */
    private static final Pattern JSON_START_MARKER = Pattern.compile("\\(start marker at \\[Source: [^\\]]*; line: (\\d+), column: (\\d+)\\]\\)");

    private ParseProblem() {
    }

    /** Describes the failure of fabric8's {@code KubernetesSerialization} (or Jackson, or SnakeYAML) to parse a text. */
    public static String of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof JsonProcessingException json) {
                return jackson(json);
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(" in reader, line ")) {
                return snakeYaml(t.getMessage());
            }
        }
        return firstLine(failure.getMessage());
    }

    private static String jackson(JsonProcessingException e) {
        String text = JSON_START_MARKER.matcher(firstLine(e.getOriginalMessage())).replaceAll("(opened at line $1, column $2)");
        JsonLocation where = e.getLocation();
        if (where == null || where.getLineNr() < 1) {
            return text;
        }
        return text + " (at line " + where.getLineNr() + ", column " + where.getColumnNr() + ")";
    }

    /** SnakeYAML's message without the excerpts; the last mark is where the parser gave up. */
    private static String snakeYaml(String message) {
        List<String> words = new ArrayList<>();
        String where = null;
        for (String line : message.split("\n")) {
            Matcher m = YAML_MARK.matcher(line);
            if (m.find()) {
                where = m.group(1);
            } else if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                words.add(line.strip());
            }
        }
        String text = words.isEmpty() ? firstLine(message) : String.join(": ", words);
        return where == null ? text : text + " (at " + where + ")";
    }

    /** The first line of a message, at most 200 characters. */
    public static String firstLine(String message) {
        if (message == null || message.isBlank()) {
            return "(no detail)";
        }
        String line = message.strip().split("\n", 2)[0];
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
