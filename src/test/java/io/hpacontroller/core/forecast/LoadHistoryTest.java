package io.hpacontroller.core.forecast;

import io.hpacontroller.core.Parsed;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

class LoadHistoryTest {

    private static final Instant T0 = Instant.parse("2026-03-02T00:00:00Z");
    private static final long MINUTE0 = T0.getEpochSecond() / 60;

    private static Instant minute(long m) {
        return T0.plusSeconds(60 * m);
    }

    private static LoadHistory decoded(String text, Duration history) {
        Parsed<LoadHistory> parsed = LoadHistory.decode(text, history);
        assertThat(parsed).isInstanceOf(Parsed.Valid.class);
        return ((Parsed.Valid<LoadHistory>) parsed).value();
    }

    private static String invalid(String text) {
        Parsed<LoadHistory> parsed = LoadHistory.decode(text, Duration.ofDays(7));
        assertThat(parsed).as(text).isInstanceOf(Parsed.Invalid.class);
        return ((Parsed.Invalid<LoadHistory>) parsed).message();
    }

    @Test
    void oneValueAMinuteTheHighestOfItsSyncs() {
        LoadHistory h = new LoadHistory(Duration.ofHours(1));
        assertThat(h.record("Resource/cpu", T0.plusSeconds(5), 300)).isTrue();
        h.record("Resource/cpu", T0.plusSeconds(20), 420);
        h.record("Resource/cpu", T0.plusSeconds(35), 380);
        h.record("Resource/cpu", T0.plusSeconds(65), 100);
        h.record("Resource/cpu", T0.plusSeconds(185), 50);  // minute 3: minute 2 had no sync
        LoadSeries s = h.series("Resource/cpu");
        assertThat(s.firstMinute()).isEqualTo(MINUTE0);
        assertThat(s.size()).isEqualTo(4);
        assertThat(s.value(0)).isCloseTo(420, org.assertj.core.data.Offset.offset(0.01));
        assertThat(s.value(1)).isCloseTo(100, org.assertj.core.data.Offset.offset(0.01));
        assertThat(s.value(2)).isNaN();
        assertThat(s.value(3)).isCloseTo(50, org.assertj.core.data.Offset.offset(0.01));
        assertThat(s.observed()).isEqualTo(3);
        assertThat(h.series("Pods/requests").isEmpty()).isTrue();
    }

    @Test
    void whatCannotBeALoadIsNotRecorded() {
        LoadHistory h = new LoadHistory(Duration.ofHours(1));
        assertThat(h.record("m", T0, Double.NaN)).isFalse();
        assertThat(h.record("m", T0, Double.POSITIVE_INFINITY)).isFalse();
        assertThat(h.record("m", T0, -1)).isFalse();
        assertThat(h.metrics()).isEmpty();
        assertThat(h.record("m", T0, 0)).isTrue();
        assertThat(h.series("m").value(0)).isZero();
    }

    @Test
    void keepsTheLastHistoryAndRefusesWhatIsOlder() {
        LoadHistory h = new LoadHistory(Duration.ofHours(2));
        for (int m = 0; m < 200; m++) {
            h.record("m", minute(m), m);
        }
        LoadSeries s = h.series("m");
        assertThat(s.size()).as("two hours and the minute in progress").isEqualTo(121);
        assertThat(s.firstMinute()).isEqualTo(MINUTE0 + 79);
        assertThat(s.value(0)).isCloseTo(79, org.assertj.core.data.Offset.offset(0.01));
        assertThat(h.record("m", minute(78), 5)).as("older than what is kept").isFalse();
        assertThat(h.record("m", minute(150), 1000)).as("a late sync inside the window").isTrue();
        assertThat(h.series("m").value(71)).isCloseTo(1000, org.assertj.core.data.Offset.offset(0.05));
        h.record("m", minute(1000), 7);
        assertThat(h.series("m").size()).as("after a gap longer than the history only the new point").isEqualTo(1);
    }

    @Test
    void theBoundSharesTheSameBytesAmongTheMetrics() {
        assertThat(LoadHistory.capacityMinutes(1)).isEqualTo(24_439);
        assertThat(LoadHistory.capacityMinutes(2)).isEqualTo(12_152);
        assertThat(LoadHistory.capacityMinutes(3)).isEqualTo(8_057);
        assertThat(LoadHistory.capacityMinutes(16)).isEqualTo(1_401);

        LoadHistory h = new LoadHistory(Duration.ofDays(14));
        for (int m = 0; m < 20_161; m++) {
            h.record("a", minute(m), 10);
        }
        assertThat(h.series("a").size()).isEqualTo(20_161);
        h.record("b", minute(20_160), 10);
        assertThat(h.capacityPerMetric()).isEqualTo(12_152);
        assertThat(h.series("a").size()).as("a second metric halves the first one's room").isEqualTo(12_152);
        h.retainOnly(List.of("a"));
        assertThat(h.metrics()).containsExactly("a");
        assertThat(h.capacityPerMetric()).isEqualTo(20_161);
        assertThat(h.series("a").size()).as("what was kept stays").isEqualTo(12_152);
        for (int i = 0; i < LoadHistory.MAX_METRICS - 1; i++) {
            assertThat(h.record("extra-" + i, minute(20_160), 1)).isTrue();
        }
        assertThat(h.record("one-too-many", minute(20_160), 1)).isFalse();
        assertThat(h.metrics()).hasSize(LoadHistory.MAX_METRICS);
    }

    @Test
    void theEncodedFormStaysWithin64KiBForAnyNumberOfMetricsAndAnyHistory() {
        String longName = "x".repeat(LoadHistory.MAX_KEY_BYTES);
        Random random = new Random(7);
        for (int metrics = 1; metrics <= LoadHistory.MAX_METRICS; metrics++) {
            LoadHistory h = new LoadHistory(Duration.ofDays(365));
            int minutes = LoadHistory.capacityMinutes(metrics) + 100;
            for (int k = 0; k < metrics; k++) {
                String name = longName.substring(0, LoadHistory.MAX_KEY_BYTES - 3) + String.format("%03d", k);
                for (int m = 0; m < minutes; m++) {
                    h.record(name, minute(m), random.nextDouble() * 1e6);
                }
            }
            String encoded = h.encode();
            assertThat(encoded.length()).as("%d metrics", metrics).isLessThanOrEqualTo(LoadHistory.MAX_ENCODED_CHARS);
            if (metrics == 1) {
                assertThat(encoded.length()).as("the bound is what limits the history").isGreaterThan(65_000);
            }
        }
    }

    @Test
    void roundTripKeepsEveryPointWithinHalfAStep() {
        LoadHistory h = new LoadHistory(Duration.ofDays(1));
        Random random = new Random(3);
        double[] cpu = new double[1440];
        for (int m = 0; m < 1440; m++) {
            cpu[m] = m % 97 == 5 ? Double.NaN : 2000 + 1500 * Math.sin(m / 100.0) + random.nextDouble() * 10;
            if (!Double.isNaN(cpu[m])) {
                h.record("Resource/cpu", minute(m), cpu[m]);
            }
            h.record("External/queue", minute(m), m < 700 ? 0 : 3);
        }
        String encoded = h.encode();
        LoadHistory back = decoded(encoded, Duration.ofDays(1));
        assertThat(back.metrics()).containsExactly("Resource/cpu", "External/queue");
        assertThat(back.encode()).isEqualTo(encoded);
        LoadSeries s = back.series("Resource/cpu");
        assertThat(s.firstMinute()).isEqualTo(MINUTE0);
        double largest = 3510;
        for (int m = 0; m < 1440; m++) {
            if (Double.isNaN(cpu[m])) {
                assertThat(s.value(m)).isNaN();
            } else {
                assertThat(s.value(m)).isCloseTo(cpu[m], org.assertj.core.data.Offset.offset(largest / 65534));
            }
        }
        assertThat(back.series("External/queue").value(10)).isZero();
        assertThat(back.series("External/queue").value(1000)).isEqualTo(3.0);
        // learning goes on after a restart
        assertThat(back.record("Resource/cpu", minute(1440), 2500)).isTrue();
        assertThat(back.series("Resource/cpu").size()).isEqualTo(1441);
    }

    @Test
    void aShorterHistoryAtReadingKeepsTheNewestPoints() {
        LoadHistory h = new LoadHistory(Duration.ofDays(1));
        for (int m = 0; m < 600; m++) {
            h.record("m", minute(m), m);
        }
        LoadSeries s = decoded(h.encode(), Duration.ofMinutes(99)).series("m");
        assertThat(s.size()).isEqualTo(100);
        assertThat(s.firstMinute()).isEqualTo(MINUTE0 + 500);
        assertThat(s.value(99)).isCloseTo(599, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void anOutlierCoarsensTheStepUntilItLeavesTheHistory() {
        LoadHistory h = new LoadHistory(Duration.ofHours(2));
        h.record("m", minute(0), 1.0);
        h.record("m", minute(1), 1e9);
        assertThat(h.series("m").value(0)).as("1 next to 1e9: lost in the step").isLessThan(1e9 / 65534);
        for (int m = 2; m < 300; m++) {
            h.record("m", minute(m), 1.0 + (m % 10) / 100.0);
        }
        LoadSeries s = h.series("m");
        for (int i = 0; i < s.size(); i++) {
            assertThat(s.value(i)).as("fine again once the outlier is gone").isCloseTo(1.0 + ((s.firstMinute() - MINUTE0 + i) % 10) / 100.0,
                    org.assertj.core.data.Offset.offset(1.1 / 65534 * 2));
        }
    }

    @Test
    void aLongMetricNameIsKeptUnderADigest() {
        String name = "External/" + "q".repeat(400);
        LoadHistory h = new LoadHistory(Duration.ofHours(1));
        h.record(name, T0, 5);
        assertThat(h.metrics()).singleElement().asString().startsWith("sha256:").hasSize(7 + 64);
        LoadHistory back = decoded(h.encode(), Duration.ofHours(1));
        assertThat(back.series(name).value(0)).isEqualTo(5.0);
    }

    @Test
    void garbageIsRefusedWithAMessageNeverAnException() {
        assertThat(invalid(null)).isEqualTo("stored load history is empty");
        assertThat(invalid("")).isEqualTo("stored load history is empty");
        assertThat(invalid("not base64 at all!")).startsWith("stored load history is not base64");
        assertThat(invalid("A".repeat(LoadHistory.MAX_ENCODED_CHARS + 4))).contains("more than the 65536 it can be");
        assertThat(invalid(Base64.getEncoder().encodeToString(new byte[3]))).isEqualTo("stored load history is truncated");

        LoadHistory h = new LoadHistory(Duration.ofHours(1));
        h.record("Resource/cpu", T0, 5);
        h.record("Resource/memory", T0, 7);
        byte[] good = Base64.getDecoder().decode(h.encode());
        for (int length = 0; length < good.length; length++) {
            byte[] cut = java.util.Arrays.copyOf(good, length);
            invalid(Base64.getEncoder().encodeToString(cut));
        }
        for (int i = 0; i < good.length * 8; i++) {
            byte[] flipped = good.clone();
            flipped[i / 8] ^= (byte) (1 << (i % 8));
            invalid(Base64.getEncoder().encodeToString(flipped));
        }
        Random random = new Random(11);
        for (int i = 0; i < 2000; i++) {
            byte[] noise = new byte[random.nextInt(200)];
            random.nextBytes(noise);
            invalid(Base64.getEncoder().encodeToString(noise));
            if (noise.length > 8) {
                invalid(Base64.getEncoder().encodeToString(withChecksum(noise)));  // passes the checksum
            }
        }
        byte[] version2 = java.util.Arrays.copyOf(good, good.length - 4);
        version2[0] = 2;
        assertThat(invalid(Base64.getEncoder().encodeToString(withChecksum(version2))))
                .isEqualTo("stored load history has version 2, this controller reads version 1");
        byte[] longer = java.util.Arrays.copyOf(good, good.length - 3);  // the body and one zero byte more
        longer[longer.length - 1] = 0;
        assertThat(invalid(Base64.getEncoder().encodeToString(withChecksum(longer)))).isEqualTo("stored load history has 1 bytes too many");
    }

    /** The bytes followed by their CRC-32, so that the checks behind the checksum are reached. */
    private static byte[] withChecksum(byte[] body) {
        CRC32 crc = new CRC32();
        crc.update(body);
        return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
    }
}
