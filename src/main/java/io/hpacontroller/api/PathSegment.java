package io.hpacontroller.api;

import java.nio.charset.StandardCharsets;

/**
 * A name as one segment of a URL path: every name the controller puts into a request path (a namespace, an HPA's or
 * a target's name, a kind's resource, a metric's name) goes through {@link #encode}, so no name can add a segment
 * ({@code /}), climb one ({@code ..}), end the path ({@code ?}, {@code #}) or be decoded into any of these by the
 * API server or a proxy in front of it ({@code %}). Our own code, not {@code URLEncoder} (form encoding: a space
 * becomes {@code +}, which a path keeps as a plus) nor {@code java.net.URI} (which leaves {@code ;} and {@code ..} as
 * they are): the rule is short and must not depend on a library's reading of RFC 3986.
 */
public final class PathSegment {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private PathSegment() {
    }

    /**
     * The name percent-encoded as an RFC 3986 path segment: the unreserved characters ({@code A-Z a-z 0-9 - . _ ~}) as
     * they are, every other byte of its UTF-8 form as {@code %XX}, the sub-delimiters too (a proxy may read {@code ;}
     * as the start of path parameters).
     *
     * @throws IllegalArgumentException for a name no path segment can carry: empty, {@code .} or {@code ..} (upstream's
     *                                  {@code IsValidPathSegmentName}, which the core checks first and reports as a spec
     *                                  error, so a sync never gets here with one)
     */
    public static String encode(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("\"" + (name == null ? "" : name) + "\" cannot be a segment of a URL path");
        }
        StringBuilder out = null;
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xff;
            if (unreserved(b)) {
                if (out != null) {
                    out.append((char) b);
                }
            } else {
                if (out == null) {
                    out = new StringBuilder(bytes.length + 16).append(name, 0, i); // the bytes before are ASCII
                }
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xf]);
            }
        }
        return out == null ? name : out.toString();
    }

    /** RFC 3986's unreserved characters. */
    private static boolean unreserved(int b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '.' || b == '_' || b == '~';
    }
}
