package io.hpacontroller.core.forecast;

import io.hpacontroller.core.Parsed;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * One HPA's learned load: for each of its metrics, one point a minute over the last {@code history}, in a
 * bounded ring ({@link MinuteSeries}), and its persisted form.
 *
 * <p>The bound: the persisted form (base64 text) of one HPA is at most {@value #MAX_ENCODED_CHARS}
 * characters (64 KiB), whatever {@code history} says and however many metrics there are; in memory the
 * points take the same two bytes a minute (at most 48 KiB of points per HPA). With two bytes a minute this
 * leaves {@link #capacityMinutes(int)} minutes per metric: 24,439 (almost 17 days) for one metric, 12,152
 * (8.4 days) for two, 8,057 (5.6 days) for three, 1,401 (23h21m) for {@value #MAX_METRICS}. At most {@value #MAX_METRICS} metrics are kept; the
 * integration should refuse {@code predict} on an HPA with more (see {@link PredictSetting#capacityProblem}).
 *
 * <p>Persisted form, version 1: base64 of {@code u8 version, u8 metric count}, per metric
 * {@code u8 key length, key (UTF-8), i64 newest epoch minute, u16 point count, i16 step exponent,
 * u16 × count points oldest first (65535 = missing)}, then a CRC-32 of all that. Any other input, truncated,
 * altered, or of another version, reads as {@link Parsed.Invalid} with what is wrong.
 *
 * <p>Not thread-safe: one HPA is synced by one worker at a time.
 */
public final class LoadHistory {

    public static final int MAX_ENCODED_CHARS = 65_536;
    public static final int MAX_METRICS = 16;
    static final int MAX_KEY_BYTES = 255;
    /** Base64 turns 3 bytes into 4 characters. */
    static final int MAX_ENCODED_BYTES = MAX_ENCODED_CHARS / 4 * 3;
    private static final int VERSION = 1;
    private static final int FIXED_BYTES = 1 + 1 + 4;
    private static final int PER_METRIC_BYTES = 1 + MAX_KEY_BYTES + 8 + 2 + 2;

    private final int historyMinutes;
    private final Map<String, MinuteSeries> series = new LinkedHashMap<>();

    /**
     * An empty history that keeps {@code history} of complete minutes per metric, plus the minute in
     * progress (less when the bound requires).
     */
    public LoadHistory(Duration history) {
        long minutes = (history.toSeconds() + 59) / 60;
        if (minutes < 1) {
            throw new IllegalArgumentException("history must be at least 1m, got " + history);
        }
        this.historyMinutes = (int) Math.min(minutes + 1, capacityMinutes(1));
    }

    /** Minutes of history each metric can keep when an HPA has {@code metrics} metrics. */
    public static int capacityMinutes(int metrics) {
        int n = Math.max(1, metrics);
        return (MAX_ENCODED_BYTES - FIXED_BYTES - n * PER_METRIC_BYTES) / (2 * n);
    }

    /** The metrics with a series, in the order first recorded. */
    public Set<String> metrics() {
        return series.keySet();
    }

    /**
     * Records a metric's load at a sync. Within a minute the highest value is kept.
     *
     * @param metric a stable name for the metric (e.g. "Resource/cpu"); a name longer than 255 UTF-8 bytes
     *               is kept under a digest of it
     * @return false when the value is not recorded: not finite or negative, older than what is kept, or a
     *         metric beyond the first {@value #MAX_METRICS}
     */
    public boolean record(String metric, Instant at, double load) {
        if (!(load >= 0) || Double.isInfinite(load)) {
            return false;
        }
        String key = key(metric);
        MinuteSeries s = series.get(key);
        if (s == null) {
            if (series.size() >= MAX_METRICS) {
                return false;
            }
            s = new MinuteSeries(capacityPerMetric(series.size() + 1));
            series.put(key, s);
            resizeAll();
            s = series.get(key);
        }
        long minute = Math.floorDiv(at.getEpochSecond(), 60);
        if (s.count() > 0 && s.newestMinute() - minute >= s.count()) {
            return false;
        }
        s.record(minute, load);
        return true;
    }

    /** Forgets the metrics not in {@code metrics} (e.g. removed from the HPA's spec). */
    public void retainOnly(Collection<String> metrics) {
        Set<String> keep = new HashSet<>();
        for (String m : metrics) {
            keep.add(key(m));
        }
        if (series.keySet().retainAll(keep)) {
            resizeAll();
        }
    }

    /** A snapshot of one metric's series; empty when nothing was recorded for it. */
    public LoadSeries series(String metric) {
        MinuteSeries s = series.get(key(metric));
        return s == null || s.count() == 0 ? LoadSeries.empty() : s.snapshot();
    }

    /** Minutes each metric keeps now. */
    public int capacityPerMetric() {
        return capacityPerMetric(series.size());
    }

    private int capacityPerMetric(int metrics) {
        return Math.min(historyMinutes, capacityMinutes(metrics));
    }

    private void resizeAll() {
        int capacity = capacityPerMetric();
        series.replaceAll((k, s) -> s.capacity() == capacity ? s : s.resized(capacity));
    }

    /** The persisted form: base64 text of at most {@value #MAX_ENCODED_CHARS} characters. */
    public String encode() {
        int size = FIXED_BYTES;
        for (Map.Entry<String, MinuteSeries> e : series.entrySet()) {
            size += 1 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 8 + 2 + 2 + 2 * e.getValue().count();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put((byte) VERSION).put((byte) series.size());
        for (Map.Entry<String, MinuteSeries> e : series.entrySet()) {
            byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
            MinuteSeries s = e.getValue();
            out.put((byte) key.length).put(key).putLong(s.newestMinute()).putShort((short) s.count());
            out.putShort((short) (s.step() == 0 ? Short.MIN_VALUE : Math.getExponent(s.step())));
            for (char q : s.pointsOldestFirst()) {
                out.putChar(q);
            }
        }
        CRC32 crc = new CRC32();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        return Base64.getEncoder().encodeToString(out.array());
    }

    /**
     * Reads a persisted form back, keeping up to {@code history} per metric (the newest points when the
     * stored series are longer).
     */
    public static Parsed<LoadHistory> decode(String text, Duration history) {
        if (text == null || text.isEmpty()) {
            return Parsed.invalid("stored load history is empty");
        }
        if (text.length() > MAX_ENCODED_CHARS) {
            return Parsed.invalid("stored load history is " + text.length() + " characters, more than the "
                    + MAX_ENCODED_CHARS + " it can be");
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return Parsed.invalid("stored load history is not base64: " + e.getMessage());
        }
        try {
            return read(ByteBuffer.wrap(bytes), history);
        } catch (BufferUnderflowException e) {
            return Parsed.invalid("stored load history is truncated");
        }
    }

    private static Parsed<LoadHistory> read(ByteBuffer in, Duration history) {
        String frame = openFrame(in);
        if (frame != null) {
            return Parsed.invalid(frame);
        }
        int metrics = in.get() & 0xFF;
        if (metrics > MAX_METRICS) {
            return Parsed.invalid("stored load history has " + metrics + " metrics, more than " + MAX_METRICS);
        }
        LoadHistory h = new LoadHistory(history);
        int capacity = h.capacityPerMetric(metrics);
        for (int i = 0; i < metrics; i++) {
            String problem = h.readSeries(in, capacity);
            if (problem != null) {
                return Parsed.invalid(problem);
            }
        }
        if (in.hasRemaining()) {
            return Parsed.invalid("stored load history has " + in.remaining() + " bytes too many");
        }
        return Parsed.valid(h);
    }

    /**
     * Checks the frame (length, CRC-32, version), then leaves {@code in} limited to the metrics, just after the
     * version byte; what is wrong, or null.
     */
    private static String openFrame(ByteBuffer in) {
        if (in.remaining() < FIXED_BYTES) {
            return "stored load history is truncated";
        }
        CRC32 crc = new CRC32();
        crc.update(in.array(), 0, in.limit() - 4);
        if ((int) crc.getValue() != in.getInt(in.limit() - 4)) {
            return "stored load history is corrupt (checksum mismatch)";
        }
        in.limit(in.limit() - 4);
        int version = in.get() & 0xFF;
        if (version != VERSION) {
            return "stored load history has version " + version + ", this controller reads version " + VERSION;
        }
        return null;
    }

    /** Reads one metric's stored series into this history; what is wrong with it, or null. */
    private String readSeries(ByteBuffer in, int capacity) {
        byte[] keyBytes = new byte[in.get() & 0xFF];
        in.get(keyBytes);
        String key = strictUtf8(keyBytes);
        if (key == null) {
            return "stored load history has a metric name that is not UTF-8";
        }
        long newest = in.getLong();
        int count = in.getShort() & 0xFFFF;
        short exponent = in.getShort();
        if (key.isEmpty() || series.containsKey(key)) {
            return "stored load history has an empty or repeated metric name";
        }
        if (newest < 0 || newest > Instant.MAX.getEpochSecond() / 60 || count == 0) {
            return "stored load history of " + key + " has an impossible time or no points";
        }
        boolean noStep = exponent == Short.MIN_VALUE;
        if (!noStep && (exponent < Double.MIN_EXPONENT - 52 || !Double.isFinite(Math.scalb((double) MinuteSeries.MAX_Q, exponent)))) {
            return "stored load history of " + key + " has an impossible scale";
        }
        char[] points = points(in, count);
        if (points == null) {
            return "stored load history is truncated";
        }
        for (char q : points) {
            if (noStep && q != MinuteSeries.MISSING && q != 0) {
                return "stored load history of " + key + " has values but no scale";
            }
        }
        series.put(key, new MinuteSeries(capacity, newest, points, noStep ? 0 : Math.scalb(1.0, exponent)));
        return null;
    }

    /** The bytes as UTF-8, or null when they are not (malformed or unmappable). */
    private static String strictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** The next {@code count} u16 points, or null when fewer are left. */
    private static char[] points(ByteBuffer in, int count) {
        CharBuffer view = in.asCharBuffer();
        if (view.remaining() < count) {
            return null;
        }
        char[] points = new char[count];
        view.get(points);
        in.position(in.position() + 2 * count);
        return points;
    }

    /** The stored name of a metric: itself, or a digest when longer than {@value #MAX_KEY_BYTES} UTF-8 bytes. */
    static String key(String metric) {
        byte[] bytes = metric.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_KEY_BYTES && !metric.isEmpty()) {
            return metric;
        }
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
