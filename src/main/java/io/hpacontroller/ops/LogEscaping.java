package io.hpacontroller.ops;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

/**
 * One event, one line of the text log: control characters in a message (a newline in an annotation's value
 * that a message quotes) are written escaped, as Go's {@code %q} writes them ({@code \n}, {@code \r},
 * {@code \t}, {@code \u001b}), so nothing a user wrote can start a forged line. The same for the message of an
 * exception; its stack trace keeps its lines. The JSON format escapes them already (one object per line).
 */
public final class LogEscaping {

    private LogEscaping() {
    }

    /** The text with every control character (C0, DEL, C1, and the Unicode line and paragraph separators) escaped. */
    public static String escape(String text) {
        if (text == null) {
            return null;
        }
        int i = 0;
        while (i < text.length() && !isControl(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isControl(c)) {
                sb.append(c);
                continue;
            }
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.toString();
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }

    /** {@code %msg} with control characters escaped. */
    public static final class Message extends MessageConverter {
        @Override
        public String convert(ILoggingEvent event) {
            return escape(super.convert(event));
        }
    }

    /** {@code %ex} with each exception's message escaped; the stack trace keeps its lines. */
    public static final class Throwable extends ThrowableProxyConverter {
        @Override
        protected String throwableProxyToString(IThrowableProxy tp) {
            return super.throwableProxyToString(new Escaped(tp));
        }
    }

    /** An exception as logback sees it, its message escaped (and its causes' and suppressed ones'). */
    private record Escaped(IThrowableProxy tp) implements IThrowableProxy {
        @Override
        public String getMessage() {
            return escape(tp.getMessage());
        }

        @Override
        public String getOverridingMessage() {
            return escape(tp.getOverridingMessage());
        }

        @Override
        public String getClassName() {
            return tp.getClassName();
        }

        @Override
        public StackTraceElementProxy[] getStackTraceElementProxyArray() {
            return tp.getStackTraceElementProxyArray();
        }

        @Override
        public int getCommonFrames() {
            return tp.getCommonFrames();
        }

        @Override
        public IThrowableProxy getCause() {
            return tp.getCause() == null ? null : new Escaped(tp.getCause());
        }

        @Override
        public IThrowableProxy[] getSuppressed() {
            IThrowableProxy[] suppressed = tp.getSuppressed();
            if (suppressed == null) {
                return null;
            }
            IThrowableProxy[] out = new IThrowableProxy[suppressed.length];
            for (int i = 0; i < suppressed.length; i++) {
                out[i] = new Escaped(suppressed[i]);
            }
            return out;
        }

        @Override
        public boolean isCyclic() {
            return tp.isCyclic();
        }
    }
}
