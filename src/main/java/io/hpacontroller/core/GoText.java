package io.hpacontroller.core;

import java.util.List;

/**
 * Values printed the way Go's {@code fmt} prints them in upstream's error messages: {@code %q} of a string
 * and {@code %#v} of a {@code []string}.
 */
public final class GoText {

    private GoText() {
    }

    /** {@code strconv.Quote}: double quotes, with backslash escapes for quotes, backslashes and unprintable characters. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        s.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 11 -> sb.append("\\v");
                default -> {
                    if (c < ' ' || c == 0x7f) {
                        sb.append(String.format("\\x%02x", c));
                    } else if (Character.isISOControl(c) || !Character.isDefined(c) || Character.getType(c) == Character.FORMAT) {
                        sb.append(c < 0x10000 ? String.format("\\u%04x", c) : String.format("\\U%08x", c));
                    } else {
                        sb.appendCodePoint(c);
                    }
                }
            }
        });
        return sb.append('"').toString();
    }

    /** {@code %#v} of a {@code []string}: {@code []string(nil)} when empty (a nil slice), else {@code []string{"a", "b"}}. */
    public static String stringSlice(List<String> values) {
        if (values == null || values.isEmpty()) {
            return "[]string(nil)";
        }
        StringBuilder sb = new StringBuilder("[]string{");
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(quote(values.get(i)));
        }
        return sb.append('}').toString();
    }
}
