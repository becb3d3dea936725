package io.hpacontroller.core.bench;

import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.forecast.Forecast;
import io.hpacontroller.core.forecast.LoadHistory;
import io.hpacontroller.core.forecast.LoadSeries;
import io.hpacontroller.core.forecast.PredictSetting;
import io.hpacontroller.core.forecast.PredictSetting.Model;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One forecast of one metric from a full history of a noisy daily load (sine plus Gaussian noise, as
 * the controller records it: one point a minute): {@code holtWinters} with a 24h season over
 * {@code days} of history (2 is the least it forecasts with, 7 the default, 14 the most), {@code linear}
 * over a 30-minute window. Also the persisted form of that history: {@code encode} and {@code decode}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ForecastBenchmark {

    @Param({"2", "7", "14"})
    public int days;

    private PredictSetting holtWinters;
    private PredictSetting linear;
    private LoadSeries series;
    private LoadHistory history;
    private String encoded;
    private Instant now;

    @Setup
    public void setUp() {
        holtWinters = new PredictSetting(Model.HOLT_WINTERS, Duration.ofHours(24), Duration.ofMinutes(2), Duration.ofDays(days));
        linear = new PredictSetting(Model.LINEAR, null, Duration.ofMinutes(2), Duration.ofMinutes(30));
        history = holtWinters.newHistory();
        Instant start = Instant.ofEpochMilli(PodMix.NOW);
        Random random = new Random(4);
        int minutes = days * 1440;
        for (int m = 0; m < minutes; m++) {
            double load = 4000 + 2500 * Math.sin(2 * Math.PI * m / 1440) + random.nextGaussian() * 200;
            history.record("Resource/cpu", start.plusSeconds(60L * m), Math.max(0, load));
        }
        series = history.series("Resource/cpu");
        encoded = history.encode();
        now = start.plusSeconds(60L * minutes + 20);
    }

    @Benchmark
    public Forecast holtWinters() {
        return holtWinters.forecast(series, now);
    }

    @Benchmark
    public Forecast linear() {
        return linear.forecast(series, now);
    }

    @Benchmark
    public String encode() {
        return history.encode();
    }

    @Benchmark
    public Parsed<LoadHistory> decode() {
        return LoadHistory.decode(encoded, holtWinters.history());
    }
}
