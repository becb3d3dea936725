package io.hpacontroller.core.bench;

import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.schedule.Schedules;
import io.hpacontroller.core.schedule.SchedulesAnnotation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One evaluation of an HPA's schedules at the next sync (15 s later each call): which rule is in force.
 * {@code typical}: three rules in two zones (weekday office hours, a Friday-evening weekend rule, the first
 * day of each month). {@code longest}: three 31-day rules whose starts are rare or absent (29 February, the
 * 31 December, every minute), so the search looks back the whole 31 days each time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ScheduleBenchmark {

    @Param({"typical", "longest"})
    public String rules;

    private Schedules schedules;
    private Instant now;

    @Setup
    public void setUp() {
        String yaml = rules.equals("typical") ? """
                - {cron: "0 8 * * MON-FRI", duration: 10h, timezone: Europe/Berlin, minReplicas: 6}
                - {cron: "0 18 * * FRI", duration: 62h, timezone: America/New_York, minReplicas: 3}
                - {cron: "0 0 1 * *", duration: 24h, timezone: UTC, minReplicas: 8}
                """ : """
                - {cron: "0 0 29 2 *", duration: 744h, timezone: Europe/Berlin, minReplicas: 6}
                - {cron: "0 0 31 DEC *", duration: 744h, timezone: America/New_York, minReplicas: 3}
                - {cron: "* * * * *", duration: 744h, timezone: UTC, minReplicas: 8}
                """;
        schedules = ((Parsed.Valid<Schedules>) SchedulesAnnotation.parse(yaml)).value();
        now = Instant.ofEpochMilli(PodMix.NOW);
    }

    @Benchmark
    public Optional<Schedules.ActiveRule> activeAt() {
        now = now.plusSeconds(15);
        return schedules.activeAt(now);
    }
}
