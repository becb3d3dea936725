package io.hpacontroller.api;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** KubeTime reads every time as Instant.parse does, the API's common form without a formatter. */
class KubeTimeTest {

    private static long expected(String text) {
        try {
            return Instant.parse(text).toEpochMilli();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The five precisions the API writes, each formatter made once (making one per text was most of the test's time). */
    private static final List<DateTimeFormatter> PRECISIONS = List.of("uuuu-MM-dd'T'HH:mm:ss'Z'", "uuuu-MM-dd'T'HH:mm:ss.S'Z'",
            "uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", "uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'", "uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").stream()
            .map(pattern -> DateTimeFormatter.ofPattern(pattern).withZone(ZoneOffset.UTC)).toList();

    @Test
    void timesOfEveryPrecisionReadAsInstantParseReadsThem() {
        SplittableRandom random = new SplittableRandom(17);
        List<String> misread = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            Instant t = Instant.ofEpochSecond(random.nextLong(0, 4_102_444_800L), random.nextInt(1_000_000_000));
            for (DateTimeFormatter precision : PRECISIONS) {
                String text = precision.format(t);
                long read = KubeTime.parse(text, -1);
                if (read != expected(text)) {
                    misread.add(text + " read as " + read + ", Instant.parse: " + expected(text));
                }
            }
        }
        assertThat(misread).as("texts KubeTime reads otherwise than Instant.parse").isEmpty();
    }

    @Test
    void oddTextsAreWhatInstantParseMakesOfThem() {
        for (String text : List.of("2026-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z",
                "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-01T00:00:00.Z",
                "2026-01-01T00:00:00.1234567890Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00+01:00", "2026-1-01T00:00:00Z",
                "+2026-01-01T00:00:00Z", "2026-01-01T00:00:0xZ", "１９７０-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "not a time")) {
            assertThat(KubeTime.parse(text, -1)).as(text).isEqualTo(expected(text));
        }
        assertThat(KubeTime.parse(null, 7)).isEqualTo(7);
        assertThat(KubeTime.parse("", 7)).isEqualTo(7);
    }
}
