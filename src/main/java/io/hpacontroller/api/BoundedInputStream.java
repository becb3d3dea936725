package io.hpacontroller.api;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** An answer read at most {@code max} bytes far: one more byte is {@link TooLarge}. */
final class BoundedInputStream extends FilterInputStream {

    /** The answer has more bytes than the bound. */
    static final class TooLarge extends IOException {
        TooLarge(long max) {
            super("more than " + max + " bytes", null);
        }
    }

    private final long max;
    private long read;

    BoundedInputStream(InputStream in, long max) {
        super(in);
        this.max = max;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            count(1);
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        // never asks for more than one byte past the bound, so that an answer of exactly max bytes passes
        int n = super.read(buffer, offset, (int) Math.min(length, max - read + 1));
        if (n > 0) {
            count(n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(Math.min(n, max - read + 1));
        count(skipped);
        return skipped;
    }

    private void count(long n) throws TooLarge {
        read += n;
        if (read > max) {
            throw new TooLarge(max);
        }
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
