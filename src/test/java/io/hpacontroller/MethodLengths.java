package io.hpacontroller;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The length of each method (and constructor) of a Java source, from the line of its name to the line of its closing
 * brace, found with a brace counter over the source with its comments, strings and character literals blanked. Our own
 * (a few dozen lines) because no Java parser is on the test classpath; it reads only this project's sources.
 * A lambda, an anonymous class or a local class counts with the method it is written in.
 */
final class MethodLengths {

    /** One method: {@code Type.name}, the line of its name, and its lines. */
    record Method(String name, int line, int lines) {
    }

    private enum Kind { TYPE, METHOD, OTHER }

    private record Frame(Kind kind, String name, int line) {
    }

    private static final Pattern TYPE_HEADER = Pattern.compile("\\b(?:class|interface|enum|record)\\s+(\\w+)");
    private static final Pattern LAST_WORD = Pattern.compile("(\\w+)\\s*$");

    private MethodLengths() {
    }

    static List<Method> of(String source) {
        String code = blanked(source);
        int[] lineAt = new int[code.length() + 1];
        for (int i = 0, line = 1; i <= code.length(); i++) {
            lineAt[i] = line;
            if (i < code.length() && code.charAt(i) == '\n') {
                line++;
            }
        }
        List<Method> methods = new ArrayList<>();
        Deque<Frame> open = new ArrayDeque<>();
        int headerStart = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '{') {
                Frame f = frame(code.substring(headerStart, i), open.peek());
                open.push(f.line() < 0 ? new Frame(f.kind(), f.name(), lineAt[headerStart - f.line() - 1]) : f);
            } else if (c == '}') {
                Frame f = open.pop();
                if (f.kind() == Kind.METHOD) {
                    methods.add(new Method(f.name(), f.line(), lineAt[i] - f.line() + 1));
                }
            }
            if (c == '{' || c == '}' || c == ';') {
                headerStart = i + 1;
            }
        }
        return methods;
    }

    /**
     * What a brace opens, from its header (the text since the previous brace or semicolon): a type, a method (its name
     * before its parameters, or a compact constructor's or initializer's last word), or anything else (a block inside
     * a method, a field's initializer). The frame's line is -(offset of the name in the header) - 1, resolved by the caller.
     */
    private static Frame frame(String header, Frame parent) {
        Matcher type = TYPE_HEADER.matcher(header);
        if (type.find()) {
            return new Frame(Kind.TYPE, type.group(1), -type.start(1) - 1);
        }
        if (parent == null || parent.kind() != Kind.TYPE || header.contains("=")) {
            return new Frame(Kind.OTHER, "", 0);
        }
        int end = header.lastIndexOf(')');
        int open = end;
        for (int depth = 0; end >= 0 && open >= 0; open--) {
            depth += header.charAt(open) == ')' ? 1 : header.charAt(open) == '(' ? -1 : 0;
            if (depth == 0) {
                break;
            }
        }
        Matcher name = LAST_WORD.matcher(end >= 0 ? header.substring(0, open) : header);
        return name.find() ? new Frame(Kind.METHOD, parent.name() + "." + name.group(1), -name.start(1) - 1)
                : new Frame(Kind.METHOD, parent.name() + ".<init>", -1);
    }

    /** The source with comments, text blocks, strings and character literals replaced by spaces (newlines kept). */
    static String blanked(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            int end = literalEnd(source, i);
            if (end == i) {
                out.append(source.charAt(i++));
                continue;
            }
            for (; i < end; i++) {
                out.append(source.charAt(i) == '\n' ? '\n' : ' ');
            }
        }
        return out.toString();
    }

    /** The end of the comment or literal starting at {@code i}; {@code i} when none starts there. */
    private static int literalEnd(String s, int i) {
        if (s.startsWith("//", i)) {
            int nl = s.indexOf('\n', i);
            return nl < 0 ? s.length() : nl;
        }
        if (s.startsWith("/*", i)) {
            return s.indexOf("*/", i + 2) + 2;
        }
        if (s.startsWith("\"\"\"", i)) {
            return s.indexOf("\"\"\"", i + 3) + 3;
        }
        char c = s.charAt(i);
        if (c != '"' && c != '\'') {
            return i;
        }
        int j = i + 1;
        while (s.charAt(j) != c) {
            j += s.charAt(j) == '\\' ? 2 : 1;
        }
        return j + 1;
    }
}
